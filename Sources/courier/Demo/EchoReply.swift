import Foundation

/// The part of `TestServer`'s echo route reply the demo checks: the body the server received.
struct EchoReply: Decodable {
    let method: String
    /// The received body, base64-encoded.
    let body: String
    let bodyLength: Int

    /// The received body, decoded.
    var bodyData: Data? { Data(base64Encoded: body) }
}
