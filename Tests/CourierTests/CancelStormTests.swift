@testable import Courier
import CourierTestSupport
import Foundation
import XCTest

/// A listening socket that never accepts: connections complete in the kernel's backlog and every
/// request sent on one waits for an answer that never comes, without a thread per connection.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init(backlog: Int32 = 4096) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/never")! }

    deinit { close(descriptor) }
}

final class CancelStormTests: XCTestCase {
    /// 10,000 requests, 1,000 of them running against a server that never answers: one
    /// `cancelAllOperations()` delivers every failure within 5 seconds.
    func testThatCancellingTenThousandRequestsDeliversEveryFailureWithinFiveSeconds() throws {
        try skipIfQuickRun()
        let listener = try SilentListener()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1_000
        queue.shouldCancelAllRequestsOnFailure = false
        let callbacks = DispatchQueue(label: "cancel-storm")
        queue.callbackQueue = callbacks
        let failures = Locked(0)
        let others = EventLog()
        let requests = (0..<10_000).map { _ -> HTTPRequest in
            let request = HTTPRequest(url: listener.url)
            request.timeOutSeconds = 60
            request.setFailedBlock { request in
                if request.error?.type == .requestCancelled {
                    failures.withLock { $0 += 1 }
                } else {
                    others.add("failed: \(String(describing: request.error))")
                }
            }
            request.setCompletionBlock { _ in others.add("finished") }
            return request
        }
        for request in requests { queue.addOperation(request) }
        queue.go()
        waitUntil(timeout: 30) { queue.runningRequestsCount == 1_000 }
        // Let the running ones reach the server.
        spinMainQueue(for: 0.5)
        let started = Date()
        queue.cancelAllOperations()
        waitUntil(timeout: 60) { failures.withLock { $0 } + others.all.count == 10_000 }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 5, "every failure callback within 5 s")
        XCTAssertEqual(others.all, [], "nothing but cancellations")
        waitUntil(timeout: 10) { queue.operationCount == 0 }
        XCTAssertTrue(requests.allSatisfy(\.isFinished))
        print("cancel storm: 10,000 failure callbacks in \(String(format: "%.2f", elapsed)) s")
    }
}
