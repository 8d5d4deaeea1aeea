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

    var description: String {
        switch self {
        case .corrupt(let reason):
            return "The compressed data is corrupt: \(reason)"
        case .exceedsLimit(let limit):
            return "The data inflates to more than the limit of \(limit) bytes"
        case .truncated:
            return "The compressed data ended before the end of the compressed stream"
        }
    }

    var errorDescription: String? { description }
}
