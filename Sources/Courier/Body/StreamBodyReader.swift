import Foundation

/// The engine thread's side of a producer's body: takes from a `StreamBodyPump`, pausing the
/// transfer when nothing is ready, and makes a fresh stream (and pump) to rewind.
final class StreamBodyReader: BodyReader {
    private let maker: StreamMaker
    private let wake: @Sendable () -> Void
    private let url: URL?
    private var pump: StreamBodyPump?
    private var hasRead = false

    init(maker: StreamMaker, url: URL?, wake: @escaping @Sendable () -> Void) {
        self.maker = maker
        self.url = url
        self.wake = wake
    }

    deinit {
        close()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyReadResult {
        if pump == nil, !startPump() { return .fail(cannotRemake) }
        hasRead = true
        switch pump!.take(into: buffer) {
        case .bytes(let count): return .bytes(count)
        case .end: return .bytes(0)
        case .empty: return .pause
        case .failed(let text):
            return .fail(
                HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest, message: "The body stream failed: \(text)", url: url))
        }
    }

    func rewind() -> Bool {
        // Nothing read yet: the stream in hand is still whole.
        guard hasRead else { return true }
        pump?.stop()
        pump = nil
        hasRead = false
        return startPump()
    }

    func close() {
        pump?.stop()
        pump = nil
    }

    /// Makes the stream for this attempt; a used stream means it cannot be made again.
    private func startPump() -> Bool {
        guard let fresh = maker.makeFresh() else { return false }
        let pump = StreamBodyPump(stream: fresh, wake: wake)
        self.pump = pump
        pump.start()
        return true
    }

    private var cannotRemake: HTTPRequestError {
        HTTPRequestError(
            type: .internalErrorWhileBuildingRequest,
            message: "The body must be sent again, but its stream closure returned the stream already used; "
                + "return a new stream each time", url: url)
    }
}

@available(*, unavailable, message: "StreamBodyReader is confined to the engine thread")
extension StreamBodyReader: Sendable {}
