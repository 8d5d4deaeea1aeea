import Foundation
import XCTest

/// Stops the interop servers when the test bundle finishes. Registered by the first use of
/// ``InteropServers/shared``; if the process dies first, ``ServerWatchdog`` stops them instead.
final class InteropServersObserver: NSObject, XCTestObservation {
    private let servers: InteropServers

    init(servers: InteropServers) {
        self.servers = servers
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        servers.stop()
    }
}
