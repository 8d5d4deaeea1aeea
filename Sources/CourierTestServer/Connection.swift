import Foundation
import Glibc

/// One accepted TCP connection, as seen by the request parser and by responders.
///
/// It offers exactly what a route may want to do to a client: read buffered bytes,
/// write raw bytes, pause, and end the connection gracefully or with a reset. Fault
/// routes (stalls, trickles, drops mid-message) are built from these primitives.
///
/// Not thread-safe: a connection is created, used and closed by its own thread only.
/// `stop()` never touches this object; it shuts the descriptor down through
/// ``ServerCore``, which is what unblocks a thread waiting in here.
final class Connection {
    /// Why an operation on the connection failed.
    enum Failure: Error {
        /// A socket call failed (peer reset, broken pipe, or shut down by `stop()`).
        case io(operation: String, code: Int32)
        /// The peer closed its side before a complete message arrived.
        case unexpectedEOF
        /// The connection was already closed by this side, or the server is stopping.
        case closed
        /// The client closed or reset the connection while ``Connection/sleep(seconds:)``
        /// was pausing.
        case peerClosed

        /// Whether this failure means the client went away (closed or reset the
        /// connection), as opposed to this side closing it or the server stopping.
        /// `EPIPE`/`ECONNRESET` can also come from `stop()` shutting the socket down,
        /// so callers check ``ServerCore/isStopping`` too.
        var isPeerGone: Bool {
            switch self {
            case .peerClosed: return true
            case .io(_, let code): return code == ECONNRESET || code == EPIPE
            case .unexpectedEOF, .closed: return false
            }
        }
    }

    /// The 1-based number of this connection in accept order.
    let id: Int
    /// The socket descriptor; valid until ``close()`` or ``reset()``.
    let fd: Int32
    private let core: ServerCore

    /// Receive buffer; bytes `readIndex..<writeIndex` are received but not yet consumed.
    private var storage: [UInt8]
    private var readIndex = 0
    private var writeIndex = 0

    /// What connection-based routes remember between requests on this connection (NTLM's
    /// challenge and its outcome), by a key of the route's choosing. Only this connection's
    /// thread touches it, so it needs no lock.
    var routeMemory: [String: Any] = [:]

    /// True once ``close()`` or ``reset()`` has run.
    private(set) var isClosed = false

    /// Per-connection cache of the `Date` header value, so formatting happens at most
    /// once a second per connection without any shared lock.
    private var cachedDate: (second: Int, text: String) = (-1, "")

    init(fd: Int32, id: Int, core: ServerCore) {
        self.fd = fd
        self.id = id
        self.core = core
        self.storage = [UInt8](repeating: 0, count: 16 * 1024)
    }

    // MARK: Reading

    /// The number of received bytes not yet consumed.
    var bufferedCount: Int { writeIndex - readIndex }

    /// Receives more bytes into the buffer, growing it if it is full.
    ///
    /// - Parameter limit: the buffer never grows past this many unconsumed bytes;
    ///   callers check ``bufferedCount`` against their own limits first.
    /// - Returns: false if the peer has finished sending (EOF).
    func fill(limit: Int = 1 << 20) throws -> Bool {
        guard !isClosed else { throw Failure.closed }
        if readIndex == writeIndex {
            readIndex = 0
            writeIndex = 0
        } else if writeIndex == storage.count {
            if readIndex > 0 {
                // Slide the unconsumed tail to the front rather than growing.
                storage.withUnsafeMutableBytes { raw in
                    let base = raw.baseAddress!
                    memmove(base, base + readIndex, writeIndex - readIndex)
                }
                writeIndex -= readIndex
                readIndex = 0
            } else if storage.count < limit {
                storage.append(contentsOf: repeatElement(0, count: min(storage.count, limit - storage.count)))
            }
        }
        let start = writeIndex
        let received = try storage.withUnsafeMutableBytes { raw in
            try Socket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
        }
        writeIndex += received
        return received > 0
    }

    /// Calls `body` with the unconsumed bytes. The pointer is valid only inside `body`.
    func withBufferedBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let (start, end) = (readIndex, writeIndex)
        return try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Marks `count` buffered bytes as consumed.
    func consume(_ count: Int) {
        precondition(count <= bufferedCount, "consumed more than was buffered")
        readIndex += count
    }

    /// Reads exactly `count` bytes and appends them to `data`.
    /// - Throws: ``Failure/unexpectedEOF`` if the peer stops sending first.
    func read(exactly count: Int, appendingTo data: inout Data) throws {
        var remaining = count
        while remaining > 0 {
            if bufferedCount == 0, try !fill() { throw Failure.unexpectedEOF }
            let take = min(remaining, bufferedCount)
            withBufferedBytes { data.append($0.baseAddress!, count: take) }
            consume(take)
            remaining -= take
        }
    }

    /// Reads one CRLF-terminated line and returns it without the CRLF.
    /// - Parameter maxLength: longest line accepted, to bound memory on garbage input.
    /// - Returns: nil if the line exceeds `maxLength`.
    func readLine(maxLength: Int) throws -> [UInt8]? {
        var scanned = 0
        while true {
            let found: Int? = withBufferedBytes { bytes in
                var index = max(scanned, 1)
                while index < bytes.count {
                    if bytes[index] == 0x0A && bytes[index - 1] == 0x0D { return index }
                    index += 1
                }
                return nil
            }
            if let newline = found {
                let line = withBufferedBytes { Array($0[0..<(newline - 1)]) }
                consume(newline + 1)
                return line
            }
            scanned = bufferedCount
            // The buffer may end in the CR of the line's CRLF, its LF not read yet: only more
            // than maxLength + 1 bytes without a CRLF make the line too long. (Checking against
            // maxLength alone refused an empty line whose CR and LF came in two reads: a chunk
            // terminator split so failed a chunked upload now and then with a 400.)
            if scanned > maxLength + 1 { return nil }
            if try !fill() { throw Failure.unexpectedEOF }
        }
    }

    // MARK: Writing

    /// Writes raw bytes, blocking until all are handed to the kernel.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isClosed else { throw Failure.closed }
        try Socket.sendAll(fd, bytes)
    }

    /// Writes raw bytes, blocking until all are handed to the kernel.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes raw bytes, blocking until all are handed to the kernel.
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Writes the UTF-8 bytes of `text` exactly as given (no line-ending changes).
    func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// The current time as an HTTP `Date` header value, cached per second.
    func dateHeaderValue() -> String {
        let now = time(nil)
        if cachedDate.second != now {
            cachedDate = (now, HTTPDate.format(now))
        }
        return cachedDate.text
    }

    // MARK: Pacing and ending

    /// Pauses this connection's thread for `seconds` (at most about 30 years, which a
    /// test treats as forever).
    ///
    /// Wakes early, so a "stall forever" route can never make `stop()` hang and notices
    /// a client giving up at once:
    /// - throws ``Failure/closed`` if the server stops;
    /// - throws ``Failure/peerClosed`` if the client closes (FIN) or resets the connection.
    func sleep(seconds: Double) throws {
        guard !isClosed else { throw Failure.closed }
        // Clamped so a huge route argument cannot overflow the nanosecond deadline.
        let nanoseconds = UInt64(min(max(0, seconds), 1e9) * 1e9)
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        while true {
            if core.isStopping { throw Failure.closed }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return }
            // Poll in slices so isStopping is rechecked even if a hang-up goes unreported.
            let slice = Int32(min(50, (deadline - now + 999_999) / 1_000_000))
            if Socket.waitForHangup(fd, milliseconds: slice) {
                // stop() hangs the socket up as well; only a hang-up while the server
                // is running is the client's doing.
                throw core.isStopping ? Failure.closed : Failure.peerClosed
            }
        }
    }

    /// Ends the connection gracefully: the peer receives everything written so far,
    /// then EOF. Idempotent.
    ///
    /// We half-close and drain before releasing the descriptor because closing a
    /// socket with unread input makes the kernel send a RST, which can destroy a
    /// response the peer has not read yet (e.g. a 400 sent before the body arrived).
    func close() {
        guard !isClosed else { return }
        Socket.shutdownWrite(fd)
        var discard = [UInt8](repeating: 0, count: 4096)
        let deadline = DispatchTime.now().uptimeNanoseconds + 500_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline, Socket.waitReadable(fd, milliseconds: 100) {
            let received = (try? discard.withUnsafeMutableBytes { try Socket.receive(fd, into: $0) }) ?? 0
            if received == 0 { break }
        }
        release(reset: false)
    }

    /// Ends the connection abruptly with a TCP RST. Idempotent.
    func reset() {
        guard !isClosed else { return }
        release(reset: true)
    }

    private func release(reset: Bool) {
        isClosed = true
        core.closeConnection(fd: fd, reset: reset)
    }
}
