import Foundation

extension ServerCore {
    /// The interim response that releases a client waiting on `Expect: 100-continue`.
    private static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Serves requests on `connection` until either side ends it or the server stops,
    /// then closes it. Runs on the connection's own thread.
    func serve(_ connection: Connection) {
        Socket.setNoDelay(connection.fd)
        defer { connection.close() }
        do {
            while try serveOneRequest(on: connection) {}
        } catch let failure as RequestParser.Failure {
            try? rejectRequest(failure, on: connection)
        } catch {
            // I/O failure, EOF mid-message, or a responder that gave up: nothing more
            // can usefully be said on this connection.
        }
    }

    /// Reads one request, records it, and dispatches it to its route's responder.
    /// - Returns: whether to read another request from the connection.
    private func serveOneRequest(on connection: Connection) throws -> Bool {
        guard let head = try RequestParser.readHead(from: connection) else { return false }
        let framing: RequestHead.BodyFraming
        do {
            framing = try head.bodyFraming()
        } catch {
            noteRequest(headParsed: true, complete: nil)
            throw error
        }
        // The shared lock is taken once per request where possible: under load from
        // many connections, every extra acquisition of the (priority-inheriting,
        // kernel-assisted when contended) Mutex costs measurable throughput.
        let endpoint = Route(path: head.target)?.endpoint
        let body: Data
        if framing == .none {
            body = Data()
            noteRequest(headParsed: true, complete: recordedRequest(head, body: body, on: connection))
        } else {
            noteRequest(headParsed: true, complete: nil)
            if head.expectsContinue {
                // A route may give the final answer instead of 100 Continue: the body is
                // then never read, so the connection cannot carry another request.
                let early = Exchange(
                    request: head, body: Data(), connection: connection, server: self, keepAlive: false)
                if let endpoint, try endpoint.respondInsteadOfContinue(to: early) { return false }
                try connection.write(Self.continueResponse)
            }
            body = try RequestParser.readBody(framing: framing, from: connection)
            noteRequest(headParsed: false, complete: recordedRequest(head, body: body, on: connection))
        }

        // No check of isStopping here: stop() shuts the socket down, which ends the
        // loop at the next read or write anyway.
        let exchange = Exchange(
            request: head, body: body, connection: connection, server: self,
            keepAlive: head.wantsKeepAlive)
        if Self.isAbsoluteForm(head.target) {
            guard try admitProxied(exchange) else { return exchange.keepAlive && !connection.isClosed }
        }
        // A target no route takes goes to the S3 service, which answers 404 itself when unused.
        let responder: any Responder = endpoint ?? S3Responder()
        try responder.respond(to: exchange)
        return exchange.keepAlive && !connection.isClosed
    }

    private func recordedRequest(_ head: RequestHead, body: Data, on connection: Connection) -> RecordedRequest {
        RecordedRequest(
            method: head.method, target: head.target, httpVersion: head.version,
            headers: head.headers, body: body, connectionID: connection.id)
    }

    /// Answers a request that could not be parsed, then the connection closes (its
    /// framing is unknown, so nothing after it can be trusted).
    private func rejectRequest(_ failure: RequestParser.Failure, on connection: Connection) throws {
        let status: Int
        let message: String
        switch failure {
        case .malformed(let reason): (status, message) = (400, reason)
        case .headTooLarge: (status, message) = (431, "request head larger than \(RequestParser.maxHeadBytes) bytes")
        case .unsupportedVersion(let version): (status, message) = (505, "\(version) not supported")
        }
        let body = Array(message.utf8)
        let head =
            "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(for: status))\r\n"
            + "Date: \(connection.dateHeaderValue())\r\nServer: CourierTestServer\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try connection.write(Array(head.utf8) + body)
    }
}
