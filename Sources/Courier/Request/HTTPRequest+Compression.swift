import Foundation

/// Compressed responses, as ASI handled them: Courier asks for gzip and deflate and inflates
/// them itself with zlib, lazily (the default: `rawResponseData`, data delegates and the
/// download file's temporary copy hold the bytes as sent, and `responseData()` inflates) or as
/// they arrive. A bound on the inflated size stops decompression bombs.
extension HTTPRequest {
    /// Send `Accept-Encoding: gzip, deflate` and inflate what comes back (true).
    public var allowCompressedResponse: Bool {
        get { read(\.config.allowCompressedResponse) }
        set { write(\.config.allowCompressedResponse, newValue) }
    }

    /// Keep a compressed body as it was sent and inflate it when asked (true): `rawResponseData`
    /// and data delegates see the compressed bytes, `responseData()` and the download file the
    /// inflated ones. False inflates as the body arrives, for everything.
    public var shouldWaitToInflateCompressedResponses: Bool {
        get { read(\.config.shouldWaitToInflateCompressedResponses) }
        set { write(\.config.shouldWaitToInflateCompressedResponses, newValue) }
    }

    /// Whether the response came with a content coding (gzip, deflate, a chain of them, or one
    /// Courier cannot decode, which then fails as a corrupt body would).
    public var isResponseCompressed: Bool { read(\.response.isCompressed) }

    /// The most bytes a compressed body may inflate to (1 GiB): past it, inflating during the
    /// transfer or into a download file fails the request with `compression`, and a lazily
    /// inflated `responseData()` returns nil. A negative value counts as 0.
    public class var maxInflatedBytes: Int64 {
        get { classSettings.withLock { $0.maxInflatedBytes } }
        set { classSettings.withLock { $0.maxInflatedBytes = max(0, newValue) } }
    }

    /// Whether the head's Content-Encoding fields (all of them: a list may span several) name a
    /// coding to undo.
    static func isCompressed(_ headerBlock: RawHeaderBlock) -> Bool {
        InflaterChain.isCompressed(headerBlock.values(of: "Content-Encoding"))
    }

    /// Whether a response head's body came with content codings to undo; a head read without a
    /// Content-Encoding field is not searched.
    static func isCompressed(_ head: ResponseHead) -> Bool {
        head.hasContentEncoding && isCompressed(head.headerBlock)
    }

    /// The body as `responseData()` gives it: inflated now when it was kept compressed.
    static func inflatedBody(_ response: ResponseState, lazily: Bool) -> Data? {
        guard let body = response.body else { return nil }
        guard response.isCompressed, lazily else { return body }
        let codings = response.headerBlock.values(of: "Content-Encoding")
        return try? InflaterChain.inflate(body, contentEncodings: codings, limit: maxInflatedBytes)
    }

    /// Inflates a kept-compressed download file into `destination` through the codings of
    /// `contentEncodings` (every Content-Encoding value), bounded, streaming.
    static func inflateFile(
        at source: String, to destination: String, contentEncodings: [String], url: URL
    ) -> HTTPRequestError? {
        guard let input = FileHandle(forReadingAtPath: source) else {
            return FileBodyWriter.error("read", path: source, errno: errno)
        }
        defer { try? input.close() }
        let writer: FileBodyWriter
        do {
            writer = try FileBodyWriter(path: destination, appending: false)
        } catch {
            return error
        }
        defer { writer.close() }
        let inflater = InflaterChain(contentEncodings: contentEncodings, limit: maxInflatedBytes)
        do {
            while let chunk = try input.read(upToCount: 256 * 1024), !chunk.isEmpty {
                try chunk.withUnsafeBytes { bytes in
                    try inflater.inflate(bytes) { inflated in try writer.write(inflated) }
                }
            }
            try inflater.finish()
            return nil
        } catch let error as HTTPRequestError {
            return error
        } catch {
            return HTTPRequestError(type: .compression, message: "\(error)", url: url, underlyingError: error)
        }
    }
}
