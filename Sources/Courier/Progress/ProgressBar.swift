import Foundation

/// A ready terminal progress bar: set it as a request's or queue's `downloadProgressDelegate`
/// (or upload) and it draws percent, bytes, rate, ETA and requests done on standard error.
///
/// ```swift
/// let bar = ProgressBar(queue: queue)
/// queue.downloadProgressDelegate = bar
/// queue.go()
/// queue.waitUntilAllOperationsAreFinished()
/// bar.finish()
/// ```
///
/// On a terminal it redraws one line in place, at most ten times a second, sized to the
/// terminal's width; when the output is not a terminal it writes a plain line at every tenth of
/// the way instead. With a queue it shows the queue's exact counts and its requests done; a
/// queue with simple progress shows requests only. As a queue's `uploadProgressDelegate` (and not
/// its download one) it shows the queue's upload counts.
///
/// `@unchecked Sendable`: `state` is guarded by its lock; the rest is set once.
public final class ProgressBar: ProgressDelegate, @unchecked Sendable {
    private struct State {
        var fraction = 0.0
        var bytesDone: Int64 = 0
        var bytesTotal: Int64 = 0
        var started = Date()
        var lastDraw = Date.distantPast
        var lastPlainStep = -1
        var lastLength = 0
        var isFinished = false
    }

    private let state = Locked(State())
    private weak var queue: NetworkQueue?
    private let output: FileHandle
    private let label: String
    /// Whether `output` is a terminal: the bar redraws in place only there.
    public let isTerminal: Bool

    /// A bar drawing on `output` (standard error). Given a queue, it reads the queue's byte and
    /// request counts; otherwise it sums what its requests report.
    public init(queue: NetworkQueue? = nil, output: FileHandle = .standardError, label: String = "") {
        self.queue = queue
        self.output = output
        self.label = label
        isTerminal = isatty(output.fileDescriptor) != 0
    }

    public func setProgress(_ progress: Double) {
        update { $0.fraction = min(1, max(0, progress)) }
    }

    public func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64) {
        update { $0.bytesDone += bytes }
    }

    public func request(_ request: HTTPRequest, didSendBytes bytes: Int64) {
        update { $0.bytesDone += bytes }
    }

    public func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64) {
        update { $0.bytesTotal += bytes }
    }

    public func request(_ request: HTTPRequest, incrementUploadSizeBy bytes: Int64) {
        update { $0.bytesTotal += bytes }
    }

    /// Draws the last state and ends the line; later updates are ignored. Call it once the work
    /// is done, before printing anything else.
    public func finish() {
        let line = state.withLock { state -> String? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            return render(state)
        }
        guard let line else { return }
        write(isTerminal ? "\r" + line + "\n" : line + "\n")
    }

    // MARK: - Drawing

    private func update(_ change: (inout State) -> Void) {
        let text = state.withLock { state -> String? in
            guard !state.isFinished else { return nil }
            change(&state)
            let now = Date()
            if isTerminal {
                guard state.fraction >= 1 || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return nil }
                state.lastDraw = now
                var line = render(state)
                let width = ProgressBar.terminalWidth(of: output.fileDescriptor)
                if line.count > width - 1 { line = String(line.prefix(width - 1)) }
                let padding = max(0, state.lastLength - line.count)
                state.lastLength = line.count
                return "\r" + line + String(repeating: " ", count: padding)
            }
            let step = Int(state.fraction * 10)
            guard step > state.lastPlainStep else { return nil }
            state.lastPlainStep = step
            return render(state) + "\n"
        }
        if let text { write(text) }
    }

    private func render(_ state: State) -> String {
        var counts = (done: state.bytesDone, total: state.bytesTotal)
        var showsBytes = true
        var requests: (done: Int, total: Int)?
        if let queue {
            // The bar shows the direction it is the queue's delegate for: download unless it is
            // only the upload delegate.
            let isUploadBar = queue.uploadProgressDelegate === self && queue.downloadProgressDelegate !== self
            counts =
                isUploadBar
                ? (queue.bytesUploadedSoFar, queue.totalBytesToUpload)
                : (queue.bytesDownloadedSoFar, queue.totalBytesToDownload)
            showsBytes = queue.showAccurateProgress
            let finished = queue.requestsFinished
            requests = (finished, finished + queue.requestsCount)
        }
        let elapsed = Date().timeIntervalSince(state.started)
        return ProgressLine(
            label: label, fraction: state.fraction, bytesDone: showsBytes ? counts.done : nil,
            bytesTotal: showsBytes ? counts.total : nil, elapsed: elapsed, requests: requests
        ).text(barWidth: isTerminal ? 24 : 20)
    }

    private func write(_ text: String) {
        // A closed or full output (2>/dev/full) must not end the program: progress is optional.
        try? output.write(contentsOf: Data(text.utf8))
    }

    /// Columns of the terminal on `descriptor`, or 80.
    static func terminalWidth(of descriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
