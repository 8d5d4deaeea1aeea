import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Protocol-level behaviour of the test server, driven by a raw socket client.
final class TestServerTests: ServerTestCase {
    private func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: server.port)
    }

    func testBindsLoopbackEphemeralPort() throws {
        XCTAssertGreaterThan(server.port, 0)
        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(server.url(.status(404)).absoluteString, "http://127.0.0.1:\(server.port)/status/404")
        XCTAssertThrowsError(try TestServer(port: server.port), "port already in use")
    }

    func testEchoRoundTripWithBody() throws {
        let body = Data("hello, \u{0}world".utf8)
        let response = try client().request("POST", "/echo?x=1", headers: ["X-Custom-Header: Some Value"], body: body)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(response.header("Server"), "CourierTestServer")
        XCTAssertNotNil(response.header("Date"))

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        XCTAssertEqual(json["method"] as? String, "POST")
        XCTAssertEqual(json["target"] as? String, "/echo?x=1")
        XCTAssertEqual(json["httpVersion"] as? String, "HTTP/1.1")
        XCTAssertEqual(
            json["headers"] as? [[String]],
            [
                ["Host", "127.0.0.1"], ["X-Custom-Header", "Some Value"], ["Content-Length", "\(body.count)"],
            ])
        XCTAssertEqual(json["body"] as? String, body.base64EncodedString())
        XCTAssertEqual(json["bodyLength"] as? Int, body.count)

        let recorded = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.target, "/echo?x=1")
        XCTAssertEqual(recorded.body, body)
        XCTAssertEqual(recorded.header("x-custom-header"), "Some Value")
        XCTAssertEqual(recorded.connectionID, 1)
    }

    func testEchoAnswersAnyMethodAndHeadMatchesGetLength() throws {
        let connection = try client()
        for method in ["PUT", "DELETE", "OPTIONS", "PATCH", "BREW"] {
            let response = try connection.request(method, "/echo")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            XCTAssertEqual(json["method"] as? String, method)
        }
        // If HEAD carried a body, the GET after it on the same connection would misparse.
        let head = try connection.request("HEAD", "/echo")
        let get = try connection.request("GET", "/echo")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), get.header("Content-Length"))
        XCTAssertEqual(get.body.count, Int(get.header("Content-Length") ?? ""))
    }

    func testKeepAliveServesManyRequestsOnOneConnection() throws {
        let connection = try client()
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200)
        XCTAssertEqual(try connection.request("GET", "/echo").status, 200)
        XCTAssertEqual(server.connectionsAccepted, 1)
        XCTAssertEqual(server.requestsReceived, 2)
        XCTAssertEqual(Set(server.recordedRequests.map(\.connectionID)), [1])
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let connection = try client()
        try connection.send("GET /status/201 HTTP/1.1\r\nHost: x\r\n\r\nGET /status/202 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().status, 201)
        XCTAssertEqual(try connection.readResponse().status, 202)
    }

    func testConnectionCloseIsHonoured() throws {
        let connection = try client()
        let response = try connection.request("GET", "/echo", headers: ["Connection: close"])
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(try connection.readsEOF())
    }

    func testHTTP10ClosesUnlessKeepAliveRequested() throws {
        let closing = try client()
        let first = try closing.request("GET", "/status/200", version: "HTTP/1.0")
        XCTAssertEqual(first.version, "HTTP/1.0")
        XCTAssertEqual(first.reason, "OK")
        XCTAssertTrue(try closing.readsEOF())

        let keeping = try client()
        let second = try keeping.request("GET", "/echo", version: "HTTP/1.0", headers: ["Connection: keep-alive"])
        XCTAssertEqual(second.header("Connection"), "keep-alive")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: second.body) as? [String: Any])
        XCTAssertEqual(json["httpVersion"] as? String, "HTTP/1.0")
        XCTAssertEqual(
            try keeping.request("GET", "/status/204", version: "HTTP/1.0", headers: ["Connection: keep-alive"]).status,
            204)
    }

    func testChunkedRequestBodyIsDechunked() throws {
        let connection = try client()
        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: ignored\r\n\r\n")
        let response = try connection.readResponse()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        XCTAssertEqual(json["bodyLength"] as? Int, 12)
        XCTAssertEqual(server.recordedRequests.last?.body, Data("hello, world".utf8))
        // The connection is still usable: the trailer was consumed completely.
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200)
    }

    /// The CR and LF after a chunk's data may come in two reads (libcurl sends a chunked upload
    /// as its buffer fills): the chunk is still whole. Before the fix the server answered 400.
    func testAChunkTerminatorSplitBetweenItsCRAndLFIsRead() throws {
        let connection = try client()
        try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r")
        Thread.sleep(forTimeInterval: 0.2)
        try connection.send("\n0\r\n\r\n")
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(server.recordedRequests.last?.body, Data("hello".utf8))
    }

    func testLargeBodiesBothFramings() throws {
        let connection = try client()
        let body = TestServer.deterministicBytes(count: 3_000_000, offset: 5)
        XCTAssertEqual(try connection.request("PUT", "/status/201", body: body).status, 201)
        XCTAssertEqual(server.recordedRequests.last?.body, body)

        var chunked = Data("POST /status/200 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < body.count {
            let length = min(70_000, body.count - offset)
            chunked +=
                Data(String(length, radix: 16).utf8) + Data("\r\n".utf8) + body[offset..<(offset + length)]
                + Data("\r\n".utf8)
            offset += length
        }
        chunked += Data("0\r\n\r\n".utf8)
        try connection.send(chunked)
        XCTAssertEqual(try connection.readResponse().status, 200)
        XCTAssertEqual(server.recordedRequests.last?.body, body)
    }

    func testOversizedHeadGets431() throws {
        let connection = try client()
        try connection.send("GET /echo HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().status, 431)
        XCTAssertEqual(server.requestsReceived, 0)
    }

    func testExpect100ContinueIsAnsweredBeforeTheBody() throws {
        let connection = try client()
        try connection.send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try connection.read(through: "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n")
        try connection.send("data")
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(server.recordedRequests.last?.body, Data("data".utf8))
    }

    func testUnknownPathIs404() throws {
        let response = try client().request("GET", "/no/such/thing")
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.reason, "Not Found")
        XCTAssertEqual(response.text, "no such route")
    }

    func testMalformedRequestGets400AndClose() throws {
        let connection = try client()
        try connection.send("THIS IS NOT HTTP\r\n\r\n")
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(try connection.readsEOF())
    }

    func testSixtyFourConcurrentKeepAliveConnections() throws {
        let clients = try (0..<64).map { _ in try client() }
        for (index, connection) in clients.enumerated() {
            try connection.send("GET /status/\(200 + index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        for (index, connection) in clients.enumerated() {
            XCTAssertEqual(try connection.readResponse().status, 200 + index)
        }
        for connection in clients {
            XCTAssertEqual(try connection.request("GET", "/bytes/10").body, TestServer.deterministicBytes(count: 10))
        }
        XCTAssertEqual(server.connectionsAccepted, 64)
        XCTAssertEqual(Set(server.recordedRequests.map(\.connectionID)).count, 64)
    }

    func testStopWithIdleOpenConnectionReturnsPromptly() throws {
        let connection = try client()
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200)
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertTrue(try connection.readsEOF())
        XCTAssertThrowsError(try RawHTTPClient(port: server.port), "listener closed")
        server.stop()  // idempotent
    }

    func testStopDuringLargeDownloadReturnsPromptly() throws {
        let connection = try client()
        // The client never reads, so the server blocks in send().
        try connection.send("GET /bytes/1000000000 HTTP/1.1\r\nHost: x\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testDeinitStopsTheServer() throws {
        var scoped: TestServer? = try TestServer()
        let port = try XCTUnwrap(scoped?.port)
        let connection = try RawHTTPClient(port: port)
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200)
        scoped = nil
        XCTAssertTrue(try connection.readsEOF())
    }

    func testResetRecords() throws {
        _ = try client().request("GET", "/echo")
        server.resetRecords()
        XCTAssertEqual(server.recordedRequests.count, 0)
        XCTAssertEqual(server.requestsReceived, 0)
        XCTAssertEqual(server.connectionsAccepted, 0)
        _ = try client().request("GET", "/echo")
        XCTAssertEqual(server.connectionsAccepted, 1)
        XCTAssertEqual(server.recordedRequests.first?.connectionID, 2, "connection IDs stay unique across resets")
    }

    func testCurlSmoke() throws {
        let curl = "/usr/bin/curl"
        guard FileManager.default.isExecutableFile(atPath: curl) else { throw XCTSkip("curl not installed") }
        // -m: curl's own deadline too, so that a server that never answers fails the request.
        let run = try Tool.run(
            URL(fileURLWithPath: curl), ["-s", "-m", "10", "-d", "abc", server.url(.echo).absoluteString], timeout: 20)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: run.output) as? [String: Any], run.text)
        XCTAssertEqual(json["method"] as? String, "POST")
        XCTAssertEqual(json["body"] as? String, Data("abc".utf8).base64EncodedString())
    }
}
