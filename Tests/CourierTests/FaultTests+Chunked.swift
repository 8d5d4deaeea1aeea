import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Chunked bodies whose framing is broken (RFC 9112 §7.1). Each must fail: a client that guessed
/// where a chunk ends would hand on bytes the server never framed (CWE-444 request smuggling
/// class: framing must be parsed strictly or refused).
extension FaultTests {
    /// A chunked response whose chunked body is exactly `chunks`, then a clean close.
    private func chunked(_ chunks: String) -> Route {
        .verbatim("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    }

    func testThatAChunkSizeThatIsNotHexFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(chunked("zz\r\nhello\r\n0\r\n\r\n")), .connectionFailure)
    }

    func testThatAnOverflowingChunkSizeFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(
            server.url(chunked("FFFFFFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n")), .connectionFailure)
    }

    func testThatANegativeChunkSizeFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(chunked("-5\r\nhello\r\n0\r\n\r\n")), .connectionFailure)
    }

    func testThatAChunkWithoutItsCRLFFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(
            server.url(chunked("5\r\nhelloXX5\r\nworld\r\n0\r\n\r\n")), .connectionFailure)
    }

    /// The connection closes after the last data chunk, without the zero-size last chunk: the
    /// body may be cut short, so it is no success.
    func testThatAChunkedBodyWithoutItsLastChunkFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(chunked("5\r\nhello\r\n5\r\nworld\r\n")), .connectionFailure)
    }
}
