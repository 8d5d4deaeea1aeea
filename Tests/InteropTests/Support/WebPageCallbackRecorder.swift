import Courier
import Foundation

/// A page's delegate and progress delegate that writes down every callback it hears, the page's
/// and its resources', with the thread it ran on.
///
/// `@unchecked Sendable`: `recorded` is read and written only under `lock`.
final class WebPageCallbackRecorder: HTTPRequestDelegate, ProgressDelegate, @unchecked Sendable {
    enum Name: Sendable, Equatable {
        case started, finished, failed
    }

    struct Event {
        var name: Name
        var request: HTTPRequest
        /// The request's URL when the callback ran.
        var url: URL
        var thread: pthread_t
        /// The ``queueKey`` value of the queue the callback ran on, if it had one.
        var queue: String?
    }

    /// Set it on a callback queue (`setSpecific`) to see which callbacks ran there.
    static let queueKey = DispatchSpecificKey<String>()

    private let lock = NSLock()
    private var recorded: [Event] = []
    private var progress: [Double] = []

    /// Every callback so far, in the order they ran.
    var events: [Event] { lock.withLock { recorded } }

    /// Every `setProgress` value so far, in order.
    var progressValues: [Double] { lock.withLock { progress } }

    /// The ended (finished or failed) events so far.
    var ended: [Event] { events.filter { $0.name != .started } }

    private func record(_ name: Name, _ request: HTTPRequest) {
        let event = Event(
            name: name, request: request, url: request.url, thread: pthread_self(),
            queue: DispatchQueue.getSpecific(key: Self.queueKey))
        lock.withLock { recorded.append(event) }
    }

    func requestStarted(_ request: HTTPRequest) { record(.started, request) }
    func requestFinished(_ request: HTTPRequest) { record(.finished, request) }
    func requestFailed(_ request: HTTPRequest) { record(.failed, request) }
    func setProgress(_ progress: Double) { lock.withLock { self.progress.append(progress) } }

    /// Booleans noted from any thread, for what a block saw.
    ///
    /// `@unchecked Sendable`: `noted` is read and written only under `lock`.
    final class Flags: @unchecked Sendable {
        private let lock = NSLock()
        private var noted: [Bool] = []
        var values: [Bool] { lock.withLock { noted } }
        func note(_ value: Bool) { lock.withLock { noted.append(value) } }
    }
}
