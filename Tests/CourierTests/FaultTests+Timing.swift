import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Servers that stop or slow down: `timeOutSeconds` is time without progress, so a server that
/// says nothing times out, and one that keeps dribbling bytes does not.
extension FaultTests {
    func testThatAStallTimesOutOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.stall), .requestTimedOut, within: 3) { $0.timeOutSeconds = 0.5 }
    }

    /// Three bytes a second apart with a 1.5 s timeout: each byte is progress, so the transfer
    /// outlives its timeout and finishes whole, in memory and in a file.
    func testThatOneByteASecondKeepsGoingAndFinishesWhole() throws {
        for sink in [FaultSink.memory, .file] {
            let request = HTTPRequest(url: server.url(.trickle(3, intervalMilliseconds: 1000)))
            request.timeOutSeconds = 1.5
            var destination: String?
            if sink == .file {
                destination = try makeTemporaryDirectory("courier-faults").appendingPathComponent("slow.bin").path
                request.downloadDestinationPath = destination
            }
            let counter = EndCounter()
            counter.watch(request)
            let started = Date()
            request.startAsynchronous()
            waitUntil(timeout: 6) { counter.ends >= 2 }
            let elapsed = Date().timeIntervalSince(started)
            spinMainQueue(for: Self.grace)
            XCTAssertEqual(counter.log.all.sorted(), ["block.finished", "delegate.finished"], "\(sink)")
            XCTAssertNil(request.error, "\(sink): \(String(describing: request.error))")
            XCTAssertGreaterThan(elapsed, 1.5, "\(sink): it outlived its timeout")
            let body = destination.flatMap { FileManager.default.contents(atPath: $0) } ?? request.responseData()
            XCTAssertEqual(body, TestServer.deterministicBytes(count: 3), "\(sink)")
        }
    }

    /// A timeout shorter than the gap between bytes ends the slow transfer.
    func testThatOneByteASecondTimesOutWhenTheTimeoutIsShorterThanTheGap() throws {
        try assertOneFailureEverywhere(
            server.url(.trickle(3, intervalMilliseconds: 1000)), .requestTimedOut, within: 3
        ) { $0.timeOutSeconds = 0.5 }
    }

    /// A user who gives up on the slow transfer gets the cancel at once, not after the next byte
    /// (the first comes at once, the next a second later).
    func testThatOneByteASecondIsCancelledPromptly() throws {
        for sink in FaultSink.allCases {
            let (request, _) = try assertOneFailure(
                server.url(.trickle(3, intervalMilliseconds: 1000)), .requestCancelled, sink: sink, within: 0.9
            ) { request in
                request.setBytesReceivedBlock { request, _, _ in
                    if !request.isCancelled { request.cancel() }
                }
            }
            XCTAssertLessThan(request.totalBytesRead, 3, "\(sink): cancelled before the end")
        }
    }
}
