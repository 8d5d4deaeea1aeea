import CourierThreadSanitizer
import Foundation
import Synchronization
import XCTest

/// Servers started together for the interop tests: watched by one ``ServerWatchdog`` (which stops
/// them if the test process dies), stopped once, when the test bundle finishes or when asked, and
/// their temporary directory removed with them.
final class ServerGroup: Sendable {
    private let servers: [ChildServer]
    private let watchdog: ServerWatchdog
    private let directory: URL
    private let isStopped = Mutex(false)

    init(servers: [ChildServer], watchdog: ServerWatchdog, directory: URL) {
        self.servers = servers
        self.watchdog = watchdog
        self.directory = directory
    }

    /// Stops the servers and removes the directory; safe to call more than once.
    func stop() {
        let wasStopped = isStopped.withAnnotatedLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        watchdog.stop()
        for server in servers { server.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the group when the test bundle finishes.
    func stopWhenTheBundleFinishes() {
        XCTestObservationCenter.shared.addTestObserver(Observer(group: self))
    }

    private final class Observer: NSObject, XCTestObservation {
        private let group: ServerGroup

        init(group: ServerGroup) {
            self.group = group
        }

        func testBundleDidFinish(_ testBundle: Bundle) {
            group.stop()
        }
    }
}
