import Foundation

/// Undoes every content coding a response lists, in order: the codings in `Content-Encoding`
/// were applied in the order listed, so the last one is undone first (RFC 9110 §8.4). One
/// ``Inflater`` per gzip, x-gzip or deflate coding (each accepts gzip, zlib-wrapped and raw
/// deflate, as servers send them), `identity` passes through.
///
/// Refuses what it cannot undo rather than hand out a half-decoded body: a coding it does not
/// know ("br", "zstd", "compress") or more than ``maxCodings`` of them, the bound libcurl adopted
/// for curl CVE-2022-32206 and CVE-2023-23916 (CWE-409: stacked codings as a decompression
/// bomb). Each stage's output is bounded by `limit`, so the final body is, and so is the work an
/// intermediate layer can make.
///
/// Not thread-safe: use it from one thread at a time.
final class InflaterChain {
    /// The most codings a response may list, `identity` included.
    static let maxCodings = 5
    /// The codings Courier decodes.
    static let supportedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "identity"]

    /// The most bytes each stage, and so the whole chain, will produce.
    let limit: Int64
    /// In the order they run: the last listed coding first.
    private let stages: [Inflater]
    /// Why this chain cannot be undone, thrown as soon as body bytes arrive.
    private let refusal: InflateError?

    /// - Parameters:
    ///   - contentEncodings: the values of every `Content-Encoding` field, in order (a list
    ///     may be split over several fields).
    ///   - limit: the most bytes any stage may produce (a negative limit counts as 0).
    init(contentEncodings: [String], limit: Int64) {
        self.limit = max(0, limit)
        let codings = Self.codings(in: contentEncodings)
        if codings.count > Self.maxCodings {
            refusal = .tooManyCodings(codings.count)
        } else if let unknown = codings.first(where: { !Self.supportedCodings.contains($0) }) {
            refusal = .unsupportedCoding(unknown)
        } else {
            refusal = nil
        }
        let limit = self.limit
        stages =
            refusal != nil ? [] : codings.reversed().filter { $0 != "identity" }.map { _ in Inflater(limit: limit) }
    }

    /// The listed codings, lowercased, in the order they were applied (empty elements dropped).
    static func codings(in contentEncodings: [String]) -> [String] {
        contentEncodings.flatMap { $0.split(separator: ",") }
            .map { String($0).trimmingHTTPWhitespace().lowercased() }
            .filter { !$0.isEmpty }
    }

    /// Whether a response with these `Content-Encoding` values needs decoding: any coding but
    /// `identity`, known or not (an unknown one must fail rather than pass as the body).
    static func isCompressed(_ contentEncodings: [String]) -> Bool {
        codings(in: contentEncodings).contains { $0 != "identity" }
    }

    /// Decodes the next piece of the body as sent, handing the decoded output to `output` in
    /// pieces of at most ``Inflater/chunkSize`` bytes (valid only during the call).
    ///
    /// Untyped `throws`, as ``Inflater/inflate(_:into:)``: `output`'s errors pass through; the
    /// chain's own are ``InflateError``. After a failure the chain is spent.
    func inflate(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !input.isEmpty else { return }
        if let refusal { throw refusal }
        try push(input, through: 0, into: output)
    }

    /// Declares the body complete. No body at all is fine, whatever the codings (an empty body
    /// is empty; a 204 or 304 may carry any Content-Encoding); otherwise every layer must have
    /// ended.
    func finish() throws(InflateError) {
        // Each stage has handed all its output on by the time its input is used up, so the
        // stages finish in the order they run.
        for stage in stages { try stage.finish() }
    }

    /// Decodes a whole body in memory.
    /// - Throws: ``InflateError`` for a coding it cannot undo, or corrupt, truncated or
    ///   over-bound data.
    static func inflate(_ data: Data, contentEncodings: [String], limit: Int64) throws(InflateError) -> Data {
        let chain = InflaterChain(contentEncodings: contentEncodings, limit: limit)
        var result = Data()
        do {
            try data.withUnsafeBytes { bytes in
                try chain.inflate(bytes) { chunk in
                    result.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
                }
            }
        } catch {
            // Appending to Data cannot throw, so only the chain's own errors get here.
            throw error as? InflateError ?? .corrupt("\(error)")
        }
        try chain.finish()
        return result
    }

    private func push(
        _ bytes: UnsafeRawBufferPointer, through index: Int, into output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard index < stages.count else { return try output(bytes) }
        try stages[index].inflate(bytes) { try push($0, through: index + 1, into: output) }
    }
}

@available(*, unavailable, message: "InflaterChain is used by one thread at a time")
extension InflaterChain: Sendable {}
