import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// What the fault routes put on the wire, and how each ends the connection.
final class FaultRouteTests: ServerTestCase {
    private func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: server.port)
    }

    private func sendGet(_ route: Route, on connection: RawHTTPClient) throws {
        try connection.send("GET \(route.path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    }

    func testFaultRoutePathsRoundTrip() {
        let routes: [Route] = [
            .stall, .trickle(10, intervalMilliseconds: 25), .dropMidHeaders, .dropMidBody(1001),
            .dropMidChunked(0), .reset, .malformedStatus, .stallTimes(key: "a/b c", count: 2),
            .statusTimes(key: "retry-500", count: 1, status: 500), .delay(milliseconds: 150),
        ]
        for route in routes {
            XCTAssertEqual(Route(path: route.path), route, route.path)
        }
        XCTAssertEqual(Route.trickle(3, intervalMilliseconds: 7).path, "/trickle/3?interval=7")
        XCTAssertEqual(Route.statusTimes(key: "k", count: 2, status: 503).path, "/status-times/k/2/503")
        XCTAssertEqual(Route.stallTimes(key: "a/b", count: 1).path, "/stall-times/a%2Fb/1")
        for path in [
            "/trickle/5", "/trickle/x?interval=5", "/drop/other/5", "/drop/body", "/drop/headers/1",
            "/stall/1", "/delay/-5", "/status-times/k/1/abc", "/status-times/k/1/99", "/stall-times/k",
        ] {
            XCTAssertNil(Route(path: path), path)
        }
    }

    func testDropMidHeadersSendsHalfAHeadThenFIN() throws {
        let connection = try client()
        try sendGet(.dropMidHeaders, on: connection)
        let (data, ending) = connection.readToEnd()
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "HTTP/1.1 200 OK\r\nContent-Type: text/pl")
        XCTAssertEqual(ending, .fin)
    }

    func testDropMidBodySendsHalfTheAnnouncedBytesThenFIN() throws {
        let connection = try client()
        try sendGet(.dropMidBody(1001), on: connection)
        let head = try connection.read(through: "\r\n\r\n")
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n"), head)
        XCTAssertTrue(head.contains("\r\nContent-Length: 1001\r\n"), head)
        let (body, ending) = connection.readToEnd()
        XCTAssertEqual(body, TestServer.deterministicBytes(count: 500))
        XCTAssertEqual(ending, .fin)
    }

    func testDropMidChunkedSendsWholeChunksForHalfThenFINWithoutTerminator() throws {
        let connection = try client()
        try sendGet(.dropMidChunked(5000), on: connection)
        let head = try connection.read(through: "\r\n\r\n")
        XCTAssertTrue(head.contains("\r\nTransfer-Encoding: chunked\r\n"), head)
        let (raw, ending) = connection.readToEnd()
        XCTAssertEqual(ending, .fin)

        // De-chunk by hand: every chunk must be complete, and none may be the final 0-chunk.
        var rest = raw[...]
        var body = Data()
        var sizes: [Int] = []
        while !rest.isEmpty {
            let lineEnd = try XCTUnwrap(rest.firstRange(of: Data("\r\n".utf8)), "incomplete chunk-size line")
            let size = try XCTUnwrap(Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16))
            sizes.append(size)
            let dataStart = lineEnd.upperBound
            XCTAssertGreaterThanOrEqual(rest.endIndex - dataStart, size + 2, "truncated chunk")
            body += rest[dataStart..<(dataStart + size)]
            XCTAssertEqual(Data(rest[(dataStart + size)..<(dataStart + size + 2)]), Data("\r\n".utf8))
            rest = rest[(dataStart + size + 2)...]
        }
        XCTAssertFalse(sizes.contains(0), "no terminating chunk")
        XCTAssertGreaterThanOrEqual(sizes.count, 2)
        XCTAssertEqual(body, TestServer.deterministicBytes(count: 2500))
    }

    func testResetSendsRSTAfterReadingTheRequest() throws {
        let connection = try client()
        try connection.send("POST /reset HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        let (data, ending) = connection.readToEnd()
        XCTAssertEqual(data, Data())
        XCTAssertEqual(ending, .reset, "recv after a RST fails with ECONNRESET")
        XCTAssertEqual(server.recordedRequests.last?.body, Data("hello".utf8))
    }

    func testMalformedStatusLineThenFIN() throws {
        let connection = try client()
        try sendGet(.malformedStatus, on: connection)
        let (data, ending) = connection.readToEnd()
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertEqual(ending, .fin)
    }

    func testTrickleSendsOneBytePerIntervalThenKeepsTheConnection() throws {
        let connection = try client()
        let started = Date()
        try sendGet(.trickle(6, intervalMilliseconds: 40), on: connection)
        let head = try connection.read(through: "\r\n\r\n")
        XCTAssertTrue(head.contains("\r\nContent-Length: 6\r\n"), head)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.15, "head is sent at once")
        var body = Data()
        var arrivals: [TimeInterval] = []
        for _ in 0..<6 {
            body += try connection.read(count: 1)
            arrivals.append(Date().timeIntervalSince(started))
        }
        XCTAssertEqual(body, TestServer.deterministicBytes(count: 6))
        // Five 40 ms gaps between six bytes; generous slack below for a loaded machine.
        XCTAssertGreaterThanOrEqual(arrivals[5] - arrivals[0], 0.18)
        XCTAssertGreaterThan(arrivals[5] - arrivals[4], 0.02, "bytes arrive separately")
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200, "still usable afterwards")
        XCTAssertEqual(server.connectionsClosedByClient, 0)
    }

    func testHeadOfTrickleIsHeadOnly() throws {
        let connection = try client()
        let response = try connection.request("HEAD", Route.trickle(100, intervalMilliseconds: 1000).path)
        XCTAssertEqual(response.header("Content-Length"), "100")
        XCTAssertEqual(try connection.request("GET", "/status/204").status, 204)
    }

    func testDelayAnswersAfterTheWait() throws {
        let started = Date()
        let response = try client().request("GET", Route.delay(milliseconds: 150).path)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.14)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "delayed 150 ms")
        XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
    }

    func testStatusTimesAnswersStatusThenOK() throws {
        let connection = try client()
        for _ in 0..<2 {
            let failing = try connection.request("GET", Route.statusTimes(key: "s", count: 2, status: 500).path)
            XCTAssertEqual(failing.status, 500)
            XCTAssertEqual(failing.reason, "Internal Server Error")
            XCTAssertEqual(failing.text, "status 500")
        }
        for _ in 0..<2 {
            let ok = try connection.request("GET", Route.statusTimes(key: "s", count: 2, status: 500).path)
            XCTAssertEqual(ok.status, 200)
            XCTAssertEqual(ok.text, "ok")
        }
        XCTAssertEqual(server.hits(forKey: "s"), 4)

        // Another key starts from zero; its count and status are its own.
        let other = try connection.request("GET", Route.statusTimes(key: "t", count: 1, status: 503).path)
        XCTAssertEqual(other.status, 503)
        XCTAssertEqual(other.reason, "Service Unavailable")
        XCTAssertEqual(server.hits(forKey: "t"), 1)
        XCTAssertEqual(server.hits(forKey: "unseen"), 0)
    }
}
