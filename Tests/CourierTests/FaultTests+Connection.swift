import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Faults of the connection itself: refused, reset, hung up in the headers or in the body, a name
/// that cannot resolve, a peer that does not speak TLS.
extension FaultTests {
    func testThatARefusedConnectionFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(Fixture.refusedURL, .connectionFailure)
        let (request, _) = try assertOneFailure(Fixture.refusedURL, .connectionFailure)
        XCTAssertEqual(request.error?.curlCode, 7, "CURLE_COULDNT_CONNECT")
    }

    func testThatAResetDuringTheHeadersFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.reset), .connectionFailure)
    }

    func testThatAResponseEndingInsideItsHeadersFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.dropMidHeaders), .connectionFailure)
    }

    func testThatADropMidBodyFailsOnceEverywhereAndTheDownloadResumes() throws {
        let size = 200_000
        try assertOneFailureEverywhere(server.url(.dropMidBody(size)), .connectionFailure)
        try assertResumes(after: .dropMidBody(size), size: size)
    }

    func testThatADropMidChunkedBodyFailsOnceEverywhereAndTheDownloadResumes() throws {
        let size = 200_000
        try assertOneFailureEverywhere(server.url(.dropMidChunked(size)), .connectionFailure)
        try assertResumes(after: .dropMidChunked(size), size: size)
    }

    /// A name with a 64-byte label: the resolver refuses it before it sends any query (RFC 1035
    /// §2.3.4 limits a label to 63 bytes; glibc's res_mkquery fails with EMSGSIZE), so this
    /// test never sends a DNS packet — checked by hand with `strace -f -e trace=sendto,connect`
    /// on `curl http://<64 a>.test/`: no socket but libcurl's own wake-up pipe is written to.
    func testThatANameThatCannotResolveFailsOnceEverywhere() throws {
        let url = try XCTUnwrap(URL(string: "http://\(String(repeating: "a", count: 64)).test/bytes/10"))
        try assertOneFailureEverywhere(url, .connectionFailure)
        let (request, _) = try assertOneFailure(url, .connectionFailure)
        XCTAssertEqual(request.error?.curlCode, 6, "CURLE_COULDNT_RESOLVE_HOST")
    }

    /// https to the plain-HTTP fixture port: the fixture server waits for the end of a request
    /// line that the binary ClientHello never brings, so the handshake gets no answer and the
    /// request times out (a TLS peer that answers garbage: FaultTests+TLS.swift).
    func testThatHTTPSToAPlainHTTPPortThatSaysNothingTimesOutOnce() throws {
        var parts = try XCTUnwrap(URLComponents(url: server.url(.bytes(10)), resolvingAgainstBaseURL: false))
        parts.scheme = "https"
        let url = try XCTUnwrap(parts.url)
        try assertOneFailureEverywhere(url, .requestTimedOut, within: 3) { $0.timeOutSeconds = 0.5 }
    }

    /// A download that failed after `route` sent half of the body resumes from the kept half
    /// to a file identical to the whole body.
    func assertResumes(
        after route: Route, size: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (_, kept) = try assertOneFailure(
            server.url(route), .connectionFailure, sink: .resumableFile, file: file, line: line)
        let destination = try XCTUnwrap(kept, file: file, line: line)
        XCTAssertEqual(
            FileManager.default.contents(atPath: destination + ".download")?.count, size / 2,
            "\(route): the half that came was kept", file: file, line: line)
        let resumed = HTTPRequest(url: server.url(.bytes(size)))
        resumed.downloadDestinationPath = destination
        resumed.allowResumeForFileDownloads = true
        resumed.timeOutSeconds = 5
        resumed.startSynchronous()
        XCTAssertNil(resumed.error, "\(route)", file: file, line: line)
        XCTAssertEqual(resumed.responseStatusCode, 206, "\(route): only the rest was asked for", file: file, line: line)
        XCTAssertEqual(
            FileManager.default.contents(atPath: destination), TestServer.deterministicBytes(count: size),
            "\(route): the resumed file is whole", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".download"), file: file, line: line)
    }
}
