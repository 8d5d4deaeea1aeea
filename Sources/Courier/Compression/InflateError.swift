import Foundation

/// Why an ``Inflater`` gave up on a compressed body.
enum InflateError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The bytes are not valid gzip, zlib or raw deflate data; the text says what zlib
    /// found wrong (e.g. "invalid block type").
    case corrupt(String)
    /// The inflated output would have grown past the limit (the associated value), the
    /// usual sign of a decompression bomb. Nothing past the limit was handed out.
    case exceedsLimit(Int64)
    /// The input ended before the compressed stream did.
    case truncated
    /// The response lists a content coding Courier does not decode (the associated value,
    /// lowercased), so its body cannot be recovered.
    case unsupportedCoding(String)
    /// The response lists more content codings (the associated value) than
    /// ``InflaterChain/maxCodings``.
    case tooManyCodings(Int)

    var description: String {
        switch self {
        case .corrupt(let reason):
            return "The compressed data is corrupt: \(reason)"
        case .exceedsLimit(let limit):
            return "The data inflates to more than the limit of \(limit) bytes"
        case .truncated:
            return "The compressed data ended before the end of the compressed stream"
        case .unsupportedCoding(let coding):
            let quoted = String(coding.prefix(40).map { (0x20...0x7E).contains($0.asciiValue ?? 0) ? $0 : "?" })
            return "The response's Content-Encoding \"\(quoted)\" is not one Courier decodes "
                + "(gzip, x-gzip, deflate, identity)"
        case .tooManyCodings(let count):
            return "The response lists \(count) content codings; Courier decodes at most \(InflaterChain.maxCodings)"
        }
    }

    var errorDescription: String? { description }
}
