import Foundation

/// One attempt: checking the input, turning the configuration into a transfer, and reading back
/// what the engine reports. The engine calls the `TransferSink` methods on its own thread; they
/// record the facts under the lock and post callbacks, and never block.
extension HTTPRequest: TransferSink {
    func beginAttempt() {
        let prepared = state.withLock { state in Result { try Self.prepareAttempt(&state) } }
        let configuration: TransferConfiguration
        switch prepared {
        case .failure(let error as HTTPRequestError):
            complete(.failed(error))
            return
        case .failure(let error):
            complete(.failed(HTTPRequestError(type: .unhandledException, message: "\(error)", url: url)))
            return
        case .success(let value):
            configuration = value
        }
        if Log.isEnabled { logAttempt(configuration) }
        postEvent {
            self.progressAttemptStarted()
            self.requestStarted()
            self.notifyQueue { $0.requestDidStart(self) }
        }
        let transfer = Transfer(configuration: configuration, sink: self)
        let isCurrent = state.withLock { state -> Bool in
            guard state.machine.phase == .executing else { return false }
            state.transfer = transfer
            return true
        }
        if isCurrent { Engine.shared.add(transfer) }
    }

    /// Checks the request and fixes what this attempt sends. Bad input throws before anything
    /// reaches the network.
    private static func prepareAttempt(_ state: inout RequestState) throws(HTTPRequestError) -> TransferConfiguration {
        let url = state.config.url
        if state.config.hasNoURL {
            throw HTTPRequestError(type: .unableToCreateRequest, message: "The request has no URL")
        }
        try RequestValidation.validate(url: url)
        if !state.config.methodWasSet, let body = state.config.postBody, !body.isEmpty {
            state.config.requestMethod = "POST"
        }
        try RequestValidation.validate(method: state.config.requestMethod, url: url)
        try RequestValidation.validate(headers: state.config.requestHeaders, url: url)
        if state.originalURL == nil { state.originalURL = url }
        state.response = ResponseState()

        let method = state.config.requestMethod
        let body = method == "HEAD" ? nil : state.config.postBody
        var lines: [String] = []
        lines.reserveCapacity(state.config.requestHeaders.count + 2)
        for field in state.config.requestHeaders {
            // libcurl builds Content-Length from the body it is given.
            if body != nil, field.name.equalsIgnoringASCIICase("Content-Length") { continue }
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        if !state.config.requestHeaders.contains("User-Agent") {
            let agent =
                state.config.userAgentString ?? HTTPRequest.defaultUserAgentString ?? HTTPRequest.builtInUserAgent
            lines.append("User-Agent: " + agent)
        }
        if body != nil, !state.config.requestHeaders.contains("Content-Type") {
            // libcurl's POST mode would add a form Content-Type the user never asked for.
            lines.append("Content-Type:")
        }
        return TransferConfiguration(
            url: url.absoluteString,
            method: method,
            headerLines: lines,
            body: body,
            usesHTTP10: state.config.useHTTPVersionOne,
            inactivityTimeout: state.config.timeOutSeconds,
            reportsProgress: Self.wantsByteProgress(state),
            usesCookieEngine: state.config.useCookiePersistence,
            bodyDisposition: method == "HEAD" ? .discard : .memory
        )
    }

    /// Byte progress is collected only when someone counts bytes.
    private static func wantsByteProgress(_ state: RequestState) -> Bool {
        guard state.config.showAccurateProgress else { return false }
        let blocks = state.blocks
        return state.downloadProgressDelegate != nil || state.uploadProgressDelegate != nil
            || blocks.bytesReceived != nil || blocks.bytesSent != nil
            || (state.queue.map { !$0.isShared } ?? false)
    }

    // MARK: - TransferSink (engine thread)

    func transfer(_ transfer: Transfer, didReceive head: ResponseHead) {
        let isCurrent = state.withLock { state -> Bool in
            guard state.transfer === transfer else { return false }
            state.response.statusCode = head.statusCode
            state.response.statusLine = head.statusLine
            state.response.headers = head.headers
            return true
        }
        guard isCurrent else { return }
        if Log.isEnabled {
            let lines = head.headers.map { Log.masked($0.name + ": " + $0.value) }
            Log.message(
                "← \(head.statusLine) for \(transfer.configuration.url)\n    " + lines.joined(separator: "\n    "))
        }
        let method = transfer.configuration.method
        postEvent {
            self.progressHeadersReceived(head, method: method)
            self.requestReceivedResponseHeaders(head.headers)
            self.notifyQueue { $0.request(self, didReceiveResponseHeaders: head.headers) }
        }
    }

    private func logAttempt(_ configuration: TransferConfiguration) {
        let attempt = read(\.retryCount) + 1
        let lines = configuration.headerLines.map(Log.masked)
        let body = configuration.body.map { ", body \($0.count) bytes" } ?? ""
        Log.message(
            "→ \(configuration.method) \(configuration.url) (attempt \(attempt)\(body))\n    "
                + lines.joined(separator: "\n    "))
    }

    func transfer(_ transfer: Transfer, didProgressReceiving received: Int64, sending sent: Int64) {
        let shouldPost = state.withLock { state -> Bool in
            guard state.transfer === transfer else { return false }
            state.response.totalBytesRead = received
            state.response.totalBytesSent = sent
            let wasPending = state.progress.pending != nil
            state.progress.pending = (received, sent)
            return !wasPending
        }
        if shouldPost { postEvent { self.deliverPendingProgress() } }
    }

    func transfer(_ transfer: Transfer, didComplete outcome: TransferOutcome) {
        let next = state.withLock { state -> AttemptEnding in
            guard state.transfer === transfer else { return .stale }
            state.transfer = nil
            state.response.record(outcome, keepingBody: transfer.configuration.bodyDisposition == .memory)
            if let failure = outcome.failure {
                if failure.type == .requestTimedOut, state.machine.phase == .executing,
                    state.retryCount < state.config.numberOfTimesToRetryOnTimeout
                {
                    state.retryCount += 1
                    return .retry(state.retryCount, of: state.config.numberOfTimesToRetryOnTimeout)
                }
                return .end(.failed(failure))
            }
            let status = state.response.statusCode
            if status == 401 || status == 407 {
                return .end(
                    .failed(
                        HTTPRequestError(
                            type: .authentication,
                            message: status == 401
                                ? "The server asked for credentials and none were available"
                                : "The proxy asked for credentials and none were available",
                            url: state.config.url)))
            }
            return .end(.finished)
        }
        switch next {
        case .stale:
            break
        case .retry(let attempt, let limit):
            Log.message("retrying \(transfer.configuration.url) after a timeout (retry \(attempt) of \(limit))")
            beginAttempt()
        case .end(let result):
            if Log.isEnabled { Log.message(Self.summary(of: outcome, url: transfer.configuration.url)) }
            if case .failed(let error) = result, error.type == .connectionFailure, let queue = read(\.queue),
                queue.reachabilityHost != nil
            {
                queue.requestFailedToConnect(self, error: error)
            } else {
                completeAfterParsing(result)
            }
        }
    }

    private enum AttemptEnding {
        /// A transfer the request no longer follows (it was cancelled).
        case stale
        case retry(Int, of: Int)
        case end(RequestStateMachine.Outcome)
    }

    private static func summary(of outcome: TransferOutcome, url: String) -> String {
        let milliseconds = String(format: "%.1f", outcome.metrics.total * 1000)
        if let failure = outcome.failure { return "failed \(url) after \(milliseconds) ms: \(failure.message)" }
        return "done \(outcome.head?.statusCode ?? 0) \(url) in \(milliseconds) ms, \(outcome.bytesReceived) bytes in, "
            + "\(outcome.bytesSent) bytes out (dns \(outcome.metrics.dns)s, connect \(outcome.metrics.connect)s, "
            + "first byte \(outcome.metrics.firstByte)s)"
    }
}

extension ResponseState {
    /// Takes over what an attempt measured and received.
    mutating func record(_ outcome: TransferOutcome, keepingBody: Bool) {
        if let head = outcome.head {
            statusCode = head.statusCode
            statusLine = head.statusLine
            headers = head.headers
        }
        totalBytesRead = outcome.bytesReceived
        totalBytesSent = outcome.bytesSent
        metrics = outcome.metrics
        contentLength =
            headers["Content-Length"].flatMap { Int64($0.trimmingHTTPWhitespace()) } ?? outcome.bytesReceived
        if keepingBody, outcome.head != nil { body = outcome.body }
    }
}
