/// Writes a response body of unknown length as it is produced: in chunks for HTTP/1.1,
/// or, for an HTTP/1.0 client (which has no chunked coding), unframed and delimited by
/// closing the connection, as ``ChunkedBytesResponder`` does.
struct StreamedBody {
    private let exchange: Exchange
    private let chunked: Bool

    /// Sends the head. For `HEAD` requests nothing else should be written; check
    /// ``Exchange/isHead``.
    init(exchange: Exchange, headers: [HeaderField]) throws {
        self.exchange = exchange
        chunked = !exchange.request.isHTTP10
        if !chunked { exchange.keepAlive = false }
        try exchange.connection.write(
            exchange.head(status: 200, headers: headers, framing: chunked ? .chunked : .none))
    }

    /// Sends `bytes` as one chunk (one write, so a chunk never spans a Nagle delay).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        guard chunked else { return try exchange.connection.write(bytes) }
        var framed: [UInt8] = []
        framed.reserveCapacity(bytes.count + 16)
        framed.append(contentsOf: String(bytes.count, radix: 16).utf8)
        framed.append(contentsOf: [0x0D, 0x0A])
        framed.append(contentsOf: bytes)
        framed.append(contentsOf: [0x0D, 0x0A])
        try exchange.connection.write(framed)
    }

    /// Ends the body: the zero-size last chunk, or nothing when the close delimits it.
    func finish() throws {
        if chunked { try exchange.connection.write("0\r\n\r\n") }
    }
}
