import Courier
import CourierTestServer
import XCTest

/// Bodies whose Content-Length is known land in reused memory: a buffer goes back to a pool when
/// the last copy of its response data is gone, and the next body of about its size is written
/// into it. Whatever the reuse, each response must read exactly what its server sent, for as
/// long as anyone holds it.
final class BodyMemoryTests: XCTestCase {
    /// The pattern `Route.bytes(count)` serves: byte `i` is `i % 251`.
    private func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 251) })
    }

    private func fetch(_ route: Route, _ configure: (HTTPRequest) -> Void = { _ in }) -> HTTPRequest {
        let request = HTTPRequest(url: Fixture.url(route))
        configure(request)
        request.startSynchronous()
        return request
    }

    func testThatBodiesOfEverySizeAroundTheBufferSizesArriveWhole() {
        let kibibyte = 1024
        let sizes = [
            16 * kibibyte, 16 * kibibyte + 1, 24 * kibibyte, 24 * kibibyte + 1, 64 * kibibyte - 1, 64 * kibibyte,
            96 * kibibyte + 7, 1024 * kibibyte, 4096 * kibibyte, 4096 * kibibyte + 1,
        ]
        // Twice: the second round is written into memory the first round gave back.
        for round in 1...2 {
            for size in sizes {
                let request = fetch(.bytes(size))
                XCTAssertNil(request.error, "round \(round), \(size) bytes")
                XCTAssertEqual(request.responseData()?.count, size, "round \(round)")
                XCTAssertTrue(request.responseData() == pattern(size), "round \(round), \(size) bytes differ")
            }
        }
    }

    func testThatSmallBodiesWithAndWithoutALengthArriveWhole() {
        // Room for a small body is made when the request starts; bodies around that size, with a
        // Content-Length and chunked, must come out exactly as sent.
        for size in [0, 1, 1000, 2047, 2048, 2049, 5000, 16 * 1024] {
            for route in [Route.bytes(size), .chunked(size)] {
                let request = fetch(route)
                XCTAssertNil(request.error, "\(route)")
                XCTAssertEqual(request.responseData()?.count ?? 0, size, "\(route)")
                XCTAssertTrue((request.responseData() ?? Data()) == pattern(size), "\(route) differs")
            }
        }
    }

    func testThatAKeptResponseIsNotOverwrittenByLaterOnes() throws {
        func echo(_ byte: UInt8) -> HTTPRequest {
            // A 40 KiB body echoed back as ~54 KiB of JSON with a Content-Length.
            fetch(.echo) {
                $0.requestMethod = "POST"
                $0.postBody = Data(repeating: byte, count: 40 * 1024)
            }
        }
        let kept = echo(0x41)
        let keptData = try XCTUnwrap(kept.responseData())
        for byte in UInt8(0x42)...UInt8(0x60) {
            let other = echo(byte)
            XCTAssertEqual(try Echo(from: other).bodyData, Data(repeating: byte, count: 40 * 1024))
        }
        XCTAssertEqual(try Echo(from: kept).bodyData, Data(repeating: 0x41, count: 40 * 1024))
        XCTAssertEqual(kept.responseData(), keptData)
    }

    func testThatResponseDataCanBeChangedWithoutTouchingTheResponse() throws {
        let request = fetch(.bytes(100_000))
        var copy = try XCTUnwrap(request.responseData())
        copy.append(contentsOf: [1, 2, 3])
        copy[0] = 0xFF
        XCTAssertEqual(copy.count, 100_003)
        XCTAssertEqual(copy[0], 0xFF)
        XCTAssertEqual(Array(copy.suffix(3)), [1, 2, 3])
        XCTAssertTrue(request.responseData() == pattern(100_000), "the request's own data must be unchanged")
    }

    func testThatABodyCutShortLeavesTheNextResponseWhole() {
        let dropped = fetch(.dropMidBody(200_000))
        XCTAssertEqual(dropped.error?.type, .connectionFailure)
        let next = fetch(.bytes(200_000))
        XCTAssertNil(next.error)
        XCTAssertTrue(next.responseData() == pattern(200_000))
    }

    func testThatManyBodiesInFlightAtOnceEachArriveWhole() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 8
        queue.callbackQueue = DispatchQueue(label: "BodyMemoryTests")
        let sizes = (0..<48).map { 20_000 + $0 * 3_001 }
        let requests = sizes.map { HTTPRequest(url: Fixture.url(.bytes($0))) }
        for request in requests { queue.addOperation(request) }
        queue.go()
        waitUntilAllFinished(queue)
        for (request, size) in zip(requests, sizes) {
            XCTAssertNil(request.error)
            XCTAssertTrue(request.responseData() == pattern(size), "\(size) bytes differ")
        }
    }
}
