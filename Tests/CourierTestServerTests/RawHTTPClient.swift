import Foundation
import Glibc

/// A deliberately tiny HTTP/1.x client over a raw socket, so the server is tested
/// against exactly the bytes we choose rather than through another HTTP stack.
final class RawHTTPClient {
    /// A parsed response.
    struct Response {
        var version: String
        var status: Int
        var reason: String
        var headers: [(name: String, value: String)]
        var body: Data
        /// Payload sizes of each chunk, for chunked responses.
        var chunkSizes: [Int] = []

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        func headers(named name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// How a connection ended, as seen by `recv`.
    enum Ending: Equatable {
        /// `recv` returned 0: the server closed cleanly (FIN).
        case fin
        /// `recv` failed with `ECONNRESET`: the server reset the connection (RST).
        case reset
        /// Nothing arrived within the receive timeout.
        case timedOut
        /// `recv` failed with another errno.
        case failed(Int32)
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    private var isOpen = true

    /// Connects to 127.0.0.1:`port` with a receive timeout so a broken server fails
    /// the test instead of hanging it.
    init(port: Int, timeout: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect failed: errno \(errno)")
        }
    }

    deinit { closeSocket() }

    /// Closes the socket now: a FIN, or a RST if received data is still unread.
    func closeSocket() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(fd)
    }

    /// Closes the socket with `SO_LINGER` 0, which always sends a RST.
    func resetSocket() {
        var value = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
        closeSocket()
    }

    /// Whether anything (data, EOF or a reset) arrives within `milliseconds`, without
    /// consuming it.
    func waitReadable(milliseconds: Int32) -> Bool {
        guard buffer.isEmpty else { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads until the connection ends and returns every byte not yet consumed by an
    /// earlier read, and how it ended.
    func readToEnd() -> (data: Data, ending: Ending) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                continue
            }
            let code = errno
            if count < 0, code == EINTR { continue }
            let ending: Ending
            switch (count, code) {
            case (0, _): ending = .fin
            case (_, ECONNRESET): ending = .reset
            case (_, EAGAIN), (_, EWOULDBLOCK): ending = .timedOut
            default: ending = .failed(code)
            }
            defer { buffer.removeAll() }
            return (Data(buffer), ending)
        }
    }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                offset += sent
            }
        }
    }

    /// Reads more bytes into the buffer; false at EOF.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count < 0 { throw Failure(description: "recv failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<count])
        return count > 0
    }

    /// Reads until `marker` is buffered and returns everything up to and including it.
    func read(through marker: String) throws -> String {
        let needle = Array(marker.utf8)
        while true {
            if let range = buffer.firstRange(of: needle) {
                let result = String(decoding: buffer[..<range.upperBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                return result
            }
            guard try fill() else { throw Failure(description: "EOF before \(marker.debugDescription)") }
        }
    }

    func read(count: Int) throws -> Data {
        while buffer.count < count {
            guard try fill() else { throw Failure(description: "EOF after \(buffer.count) of \(count) bytes") }
        }
        defer { buffer.removeSubrange(..<count) }
        return Data(buffer[..<count])
    }

    /// True if the server closed the connection (EOF with nothing further buffered).
    func readsEOF() throws -> Bool {
        buffer.isEmpty ? try !fill() : false
    }

    /// Reads one response. `forHead` means the request was HEAD (no body follows).
    func readResponse(forHead: Bool = false) throws -> Response {
        let head = try read(through: "\r\n\r\n")
        var lines = head.components(separatedBy: "\r\n").dropLast(2)
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head.debugDescription)")
        }
        var response = Response(
            version: statusLine[0], status: status, reason: statusLine.count > 2 ? statusLine[2] : "",
            headers: [], body: Data())
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
            response.headers.append((parts[0], parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
        }
        if forHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try read(through: "\r\n").trimmingCharacters(in: .whitespacesAndNewlines)
                guard let size = Int(sizeLine, radix: 16) else {
                    throw Failure(description: "bad chunk size \(sizeLine)")
                }
                if size == 0 { break }
                response.chunkSizes.append(size)
                response.body += try read(count: size)
                guard try read(through: "\r\n") == "\r\n" else { throw Failure(description: "no CRLF after chunk") }
            }
            _ = try read(through: "\r\n")
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try read(count: length)
        } else {
            while try fill() {}
            response.body = Data(buffer)
            buffer.removeAll()
        }
        return response
    }

    /// Sends a request and reads its response.
    func request(
        _ method: String = "GET", _ target: String, version: String = "HTTP/1.1",
        headers: [String] = [], body: Data? = nil
    ) throws -> Response {
        var head = "\(method) \(target) \(version)\r\nHost: 127.0.0.1\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Data(head.utf8) + (body ?? Data()))
        return try readResponse(forHead: method == "HEAD")
    }
}
