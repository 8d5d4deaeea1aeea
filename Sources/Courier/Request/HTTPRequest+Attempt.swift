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
        postEvent { self.requestStarted() }
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
        let url = state.url
        if state.hasNoURL {
            throw HTTPRequestError(type: .unableToCreateRequest, message: "The request has no URL")
        }
        try RequestValidation.validate(url: url)
        if !state.methodWasSet, let body = state.postBody, !body.isEmpty { state.requestMethod = "POST" }
        try RequestValidation.validate(method: state.requestMethod, url: url)
        try RequestValidation.validate(headers: state.requestHeaders, url: url)
        if state.originalURL == nil { state.originalURL = url }
        state.response = ResponseState()

        let method = state.requestMethod
        let body = method == "HEAD" ? nil : state.postBody
        var lines: [String] = []
        lines.reserveCapacity(state.requestHeaders.count + 2)
        for field in state.requestHeaders {
            // libcurl builds Content-Length from the body it is given.
            if body != nil, field.name.equalsIgnoringASCIICase("Content-Length") { continue }
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        if !state.requestHeaders.contains("User-Agent") {
            let agent = state.userAgentString ?? HTTPRequest.defaultUserAgentString ?? HTTPRequest.builtInUserAgent
            lines.append("User-Agent: " + agent)
        }
        if body != nil, !state.requestHeaders.contains("Content-Type") {
            // libcurl's POST mode would add a form Content-Type the user never asked for.
            lines.append("Content-Type:")
        }
        return TransferConfiguration(
            url: url.absoluteString,
            method: method,
            headerLines: lines,
            body: body,
            usesHTTP10: state.useHTTPVersionOne,
            inactivityTimeout: state.timeOutSeconds,
            bodyDisposition: method == "HEAD" ? .discard : .memory
        )
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
        postEvent { self.requestReceivedResponseHeaders(head.headers) }
    }

    func transfer(_ transfer: Transfer, didComplete outcome: TransferOutcome) {
        let result = state.withLock { state -> RequestStateMachine.Outcome? in
            guard state.transfer === transfer else { return nil }
            state.transfer = nil
            var response = state.response
            if let head = outcome.head {
                response.statusCode = head.statusCode
                response.statusLine = head.statusLine
                response.headers = head.headers
            }
            response.totalBytesRead = outcome.bytesReceived
            response.totalBytesSent = outcome.bytesSent
            response.metrics = outcome.metrics
            response.contentLength =
                response.headers["Content-Length"].flatMap { Int64($0.trimmingHTTPWhitespace()) }
                ?? outcome.bytesReceived
            if transfer.configuration.bodyDisposition == .memory, outcome.head != nil { response.body = outcome.body }
            state.response = response
            if let failure = outcome.failure { return .failed(failure) }
            if response.statusCode == 401 || response.statusCode == 407 {
                return .failed(
                    HTTPRequestError(
                        type: .authentication,
                        message: response.statusCode == 401
                            ? "The server asked for credentials and none were available"
                            : "The proxy asked for credentials and none were available",
                        url: state.url))
            }
            return .finished
        }
        if let result { complete(result) }
    }
}
