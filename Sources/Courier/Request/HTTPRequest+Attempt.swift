import Foundation

/// One attempt: checking the input, turning the configuration into a transfer, and reading back
/// what the engine reports. The engine calls the `TransferSink` methods on its own thread; they
/// record the facts under the lock and post callbacks, and never block.
extension HTTPRequest {
    /// What an attempt's set-up found under the lock. No payloads: the transfer and its actions
    /// come out through captured locals (an enum carrying them was copied through outlined
    /// value witnesses, ~290 instructions per attempt in callgrind's per-function count).
    private enum AttemptSetUp {
        /// A form builds its body first, outside the lock (once, before the first attempt).
        case buildBody
        /// The PAC file is asked first (off this thread, which may be the engine's).
        case askPACFile
        /// So is the download cache, which reads the disk.
        case askCache
        /// And a gzipped body is measured off it (the whole body is read through).
        case measureBody
        /// A signing class (S3Request) signs the attempt first, outside the lock.
        case sign
        /// The transfer was made, or the request was cancelled meanwhile.
        case begun
    }

    /// `hasMeasuredBody`: the gzipped body was just measured (`measureThenBeginAttempt`), or
    /// could not be, which the attempt then fails with.
    func beginAttempt(hasMeasuredBody: Bool = false) {
        let buildsBody = type(of: self) != HTTPRequest.self && self is FormDataRequest
        let isSubclass = hasOverridableHooks
        var begun: (actions: RequestActions, transfer: Transfer?, listens: Bool) = (.none, nil, false)
        // One lock for the whole attempt's set-up unless it must wait for something first:
        // checking and fixing what it sends, who listens, and the transfer.
        let setUp: AttemptSetUp
        do {
            setUp = try state.withLock { state in
                if !state.core.hasBuiltBody {
                    _ = state.core.handle(.bodyBuilt)
                    if buildsBody { return .buildBody }
                }
                if Self.awaitsProxyDecision(&state) { return .askPACFile }
                if state.config.downloadCache != nil, state.cacheRun.askedForAttempt != state.core.attempt.number {
                    return .askCache
                }
                // Unless the body was measured as it is now.
                if state.config.shouldCompressRequestBody, !hasMeasuredBody, Self.bodyToMeasure(&state) != nil {
                    return .measureBody
                }
                if state.config.signsEachAttempt, state.signedAttempt != state.core.attempt.number { return .sign }
                let configuration = try Self.prepareAttempt(&state)
                let listens = isSubclass || Self.hasAttemptListeners(&state)
                if !listens { _ = Self.startProgress(&state) }
                begun.listens = listens
                guard state.core.isPreparing else { return .begun }
                let transfer = Transfer(configuration: consume configuration, sink: self)
                begun.transfer = transfer
                begun.actions = state.core.handle(.transferMade(transfer))
                return .begun
            }
        } catch let error as HTTPRequestError {
            complete(.failed(error))
            return
        } catch {
            complete(.failed(HTTPRequestError(type: .unhandledException, message: "\(error)", url: url)))
            return
        }
        switch setUp {
        case .buildBody:
            buildBodyBeforeFirstAttempt()
            return beginAttempt(hasMeasuredBody: hasMeasuredBody)
        case .askPACFile: return decideProxyThenBeginAttempt()
        case .askCache: return askCacheThenBeginAttempt()
        case .measureBody: return measureThenBeginAttempt()
        case .sign: return signThenBeginAttempt(hasMeasuredBody: hasMeasuredBody)
        case .begun: break
        }
        guard let transfer = begun.transfer else { return }
        if Log.isEnabled { logAttempt(transfer.configuration) }
        if begun.listens {
            postEvent {
                self.progressAttemptStarted()
                self.announce(.started)
            }
        }
        perform(begun.actions)
    }

    /// Asks the download cache on a worker thread; the attempt then loads, or the response comes
    /// from the cache.
    private func askCacheThenBeginAttempt() {
        DispatchQueue.global().async {
            self.state.withLock { $0.cacheRun.askedForAttempt = $0.core.attempt.number }
            switch self.cacheDecisionBeforeAttempt() {
            case .load: self.beginAttempt()
            case .serve(let cached): self.serve(cached)
            case .finishEmpty: self.finishWithoutLoading()
            }
        }
    }

    /// Signs the attempt (S3Request hashes a file body to do so), then begins it; on a worker
    /// thread when this one is the engine's (a timeout's retry begins there).
    private func signThenBeginAttempt(hasMeasuredBody: Bool) {
        guard !Engine.isEngineThread else {
            return DispatchQueue.global().async { self.signThenBeginAttempt(hasMeasuredBody: hasMeasuredBody) }
        }
        do throws(HTTPRequestError) {
            try signAttempt()
        } catch {
            return complete(.failed(error))
        }
        state.withLock { $0.signedAttempt = $0.core.attempt.number }
        beginAttempt(hasMeasuredBody: hasMeasuredBody)
    }

    /// Measures the gzipped body on a worker thread: this one may be the engine's, which must not
    /// stop moving every other transfer's bytes while a large file is read through.
    private func measureThenBeginAttempt() {
        DispatchQueue.global().async {
            self.measureCompressedBody()
            self.beginAttempt(hasMeasuredBody: true)
        }
    }

    /// Checks the request and fixes what this attempt sends. Bad input throws before anything
    /// reaches the network.
    private static func prepareAttempt(_ state: inout RequestState) throws(HTTPRequestError) -> TransferConfiguration {
        let url = state.config.url
        if state.config.hasNoURL {
            throw HTTPRequestError(type: .unableToCreateRequest, message: "The request has no URL")
        }
        let urlHasNoUserInformation = try RequestValidation.validate(url: url)
        if !state.config.methodWasSet, Self.hasBody(state.config) {
            state.config.requestMethod = "POST"
        }
        try RequestValidation.validate(method: state.config.requestMethod, url: url)
        try RequestValidation.validate(headers: state.attemptHeaders ?? state.config.requestHeaders, url: url)
        try RequestValidation.validate(
            settings: state.config.auth, url: url, urlHasNoUserInformation: urlHasNoUserInformation)
        if let message = state.config.unbuildableBody {
            throw HTTPRequestError(type: .internalErrorWhileBuildingRequest, message: message, url: url)
        }
        try RequestValidation.validate(
            userAgent: state.config.userAgentString ?? HTTPRequest.defaultUserAgentString, url: url)
        try state.config.clientCertificate?.validateFiles(url: url)
        if state.originalURL == nil { state.originalURL = url }
        state.response = ResponseState()
        state.stream = StreamState()
        prepareDownload(&state)

        let method = state.config.requestMethod
        var body: RequestBodySource?
        if method != "HEAD" { body = try Self.bodySource(for: &state.config, url: url) }
        var compressesOnTheFly = false
        var wireLength = body?.length
        if let source = body, state.config.shouldCompressRequestBody {
            switch source {
            case .segments(let segments, _):
                let compressed = try Self.compressedBody(for: segments, in: &state, url: url)
                if case .data(let gzipped) = compressed.form {
                    body = .data(gzipped)
                } else {
                    compressesOnTheFly = true
                }
                wireLength = compressed.length
            case .stream:
                compressesOnTheFly = true
                wireLength = nil
            }
        }
        state.attemptBodyLength = body == nil ? 0 : wireLength
        let (lines, firstGenerated) = Self.headerLines(
            for: &state, hasBody: body != nil, knownLength: wireLength != nil)
        // What `requestHeaders` shows beside the user's: the lines added after theirs (a slice,
        // no copy) and libcurl's Content-Length (CURLOPT_POSTFIELDSIZE_LARGE), which it also
        // sends, as 0, for a POST without a body unless the user gave one.
        let sentLength: Int64? =
            body != nil
            ? wireLength : (method == "POST" && !state.config.requestHeaders.contains("Content-Length") ? 0 : nil)
        state.generatedHeaders = GeneratedHeaders(lines: lines[firstGenerated...], contentLength: sentLength)
        let urlString = Self.urlWithoutCredentials(url.absoluteString)
        let credentials = try Self.applyingPACChoice(&state, to: Self.credentialsForAttempt(&state, url: url))
        try RequestValidation.validate(authentication: credentials, url: url)
        let cookie = try Self.cookieValue(for: state.config, url: url)
        return TransferConfiguration(
            url: urlString,
            method: method,
            headerLines: lines,
            body: body,
            usesHTTP10: state.config.useHTTPVersionOne,
            sendsPathAsIs: state.config.signsEachAttempt,
            // A body streamed to a data delegate takes the small buffer: one chunk is what its
            // backlog may exceed the pause threshold by.
            receiveBufferSize: state.config.downloadDestinationPath == nil || Self.streamsBody(state)
                ? TransferConfiguration.memoryReceiveBufferSize : TransferConfiguration.fileReceiveBufferSize,
            inactivityTimeout: state.config.timeOutSeconds,
            connectTimeout: state.config.connectTimeOutSeconds,
            compressesBodyOnTheFly: compressesOnTheFly,
            compressedBodyLength: compressesOnTheFly ? wireLength : nil,
            reportsProgress: Self.wantsByteProgress(&state),
            expectsBodyInMemory: method != "HEAD" && state.config.downloadDestinationPath == nil
                && !Self.streamsBody(state),
            usesCookieEngine: state.config.useCookiePersistence,
            cookie: cookie,
            caBundlePath: state.config.caBundlePath,
            verifiesCertificate: state.config.validatesSecureCertificate,
            clientCertificate: state.config.clientCertificate,
            reusesConnections: state.config.shouldAttemptPersistentConnection,
            connectionMaxAge: connectionMaxAge(state.config.persistentConnectionTimeoutSeconds, url: urlString),
            authentication: credentials
        )
    }

    /// `CURLOPT_MAXAGE_CONN` for a request that lets connections idle `seconds`, to `url`: the
    /// server's Keep-Alive timeout for that origin, if it is shorter, wins (see KeepAliveLimits).
    /// libcurl drops a connection when its idle whole seconds exceed the option, so one less than
    /// the timeout (rounded up) keeps a connection idle for the timeout or longer from reuse.
    static func connectionMaxAge(_ seconds: TimeInterval, url: String) -> Int {
        var limit = seconds.isNaN ? 0 : min(max(0, seconds), TimeInterval(Int32.max))
        if !KeepAliveLimits.isEmpty, let server = KeepAliveLimits.shared.limit(for: url) {
            limit = min(limit, TimeInterval(server))
        }
        // Rounded up without a libm call: this runs for every attempt.
        let whole = Int(limit)
        return max(0, (TimeInterval(whole) == limit ? whole : whole + 1) - 1)
    }

    /// The header lines this attempt sends, exactly as libcurl takes them, and the index of the
    /// first one Courier generated (those before it are the user's).
    private static func headerLines(
        for state: inout RequestState, hasBody: Bool, knownLength: Bool
    ) -> (lines: [String], firstGenerated: Int) {
        let headers = state.attemptHeaders ?? state.config.requestHeaders
        // A POST without a body still goes in libcurl's POST mode (CURLOPT_POST), which adds a
        // form Content-Type of its own.
        let suppressesContentType = hasBody || state.config.requestMethod == "POST"
        if !suppressesContentType, state.partialDownloadSize == 0, headers.isEmpty,
            state.cacheRun.conditionalLines.isEmpty,
            state.config.userAgentString == nil, HTTPRequest.defaultUserAgentString == nil
        {
            // The common case, the same lines every time: one shared array (and a pooled handle
            // that sees the same lines keeps its header list).
            return (state.config.allowCompressedResponse ? defaultHeaderLines : defaultHeaderLinesWithoutEncodings, 0)
        }
        var lines: [String] = []
        lines.reserveCapacity(headers.count + 2)
        for field in headers {
            // libcurl builds Content-Length from the body it is given.
            if hasBody, field.name.equalsIgnoringASCIICase("Content-Length") { continue }
            // The user's Cookie header goes out through CURLOPT_COOKIE (cookieValue), merged
            // with the jar's cookies into one field.
            if field.name.equalsIgnoringASCIICase("Cookie") { continue }
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        let firstGenerated = lines.count
        if state.config.allowCompressedResponse, !headers.contains("Accept-Encoding") {
            lines.append(acceptEncodingLine)
        }
        if !headers.contains("User-Agent") {
            if let agent = state.config.userAgentString ?? HTTPRequest.defaultUserAgentString {
                lines.append("User-Agent: " + agent)
            } else {
                lines.append(HTTPRequest.builtInUserAgentLine)
            }
        }
        if suppressesContentType, !headers.contains("Content-Type") {
            // A built form's own, or none: libcurl's POST mode would add a form Content-Type
            // the user never asked for.
            lines.append(state.config.builtBodyContentType.map { "Content-Type: " + $0 } ?? "Content-Type:")
        }
        if hasBody, state.config.shouldCompressRequestBody, !headers.contains("Content-Encoding") {
            lines.append("Content-Encoding: gzip")
        }
        if hasBody, !knownLength, !headers.contains("Transfer-Encoding") {
            // libcurl sends a body of unknown length chunked only when asked to.
            lines.append("Transfer-Encoding: chunked")
        }
        if state.partialDownloadSize > 0, !headers.contains("Range") {
            lines.append("Range: bytes=\(state.partialDownloadSize)-")
        }
        // A conditional GET for the cached copy (If-None-Match, If-Modified-Since).
        for line in state.cacheRun.conditionalLines where !headers.contains(String(line.prefix { $0 != ":" })) {
            lines.append(line)
        }
        return (lines, firstGenerated)
    }

    private static let acceptEncodingLine = "Accept-Encoding: gzip, deflate"
    /// What a request with no headers of its own and the built-in User-Agent sends.
    private static let defaultHeaderLines = [acceptEncodingLine, HTTPRequest.builtInUserAgentLine]
    private static let defaultHeaderLinesWithoutEncodings = [HTTPRequest.builtInUserAgentLine]

    /// Whether anyone hears of attempts starting and headers arriving: a delegate, a selector
    /// or block for them, a progress listener, a queue that listens, or a subclass (whose hooks
    /// may be overridden: see `hasOverridableHooks`). A plain request with none skips those
    /// callbacks entirely; its finish or failure still comes. Under the request's lock.
    static func hasAttemptListeners(_ state: inout RequestState) -> Bool {
        // Set once is enough: a listener that has gone since costs only callbacks that find nobody.
        if state.delegateIsSet || state.downloadProgressDelegateIsSet || state.uploadProgressDelegateIsSet {
            return true
        }
        if state.selectors.didStart != nil || state.selectors.didReceiveResponseHeaders != nil { return true }
        if state.blocks.started != nil || state.blocks.headersReceived != nil || state.blocks.requestRedirected != nil {
            return true
        }
        if state.blocks.bytesReceived != nil || state.blocks.bytesSent != nil { return true }
        if state.blocks.downloadSizeIncremented != nil || state.blocks.uploadSizeIncremented != nil { return true }
        guard let queue = state.queue, !queue.isShared else { return false }
        return queue.listensToAttempts
    }

    /// True for a subclass of HTTPRequest other than Courier's own (FormDataRequest and the S3
    /// classes, which override none of the hooks): its hooks may be overridden, so it hears every
    /// callback. A user's subclass of any of them is another type, and does. Skipping the started
    /// and headers callbacks nobody hears saved ~28,000 instructions a signed S3 GET (callgrind).
    var hasOverridableHooks: Bool {
        let type = type(of: self)
        return type != HTTPRequest.self && type != FormDataRequest.self && type != S3ObjectRequest.self
            && type != S3BucketRequest.self && type != S3ServiceRequest.self
    }

    /// Byte progress is collected only when someone counts bytes.
    private static func wantsByteProgress(_ state: inout RequestState) -> Bool {
        guard state.config.showAccurateProgress else { return false }
        if state.blocks.bytesReceived != nil || state.blocks.bytesSent != nil { return true }
        if let queue = state.queue, !queue.isShared { return true }
        return state.downloadProgressDelegate != nil || state.uploadProgressDelegate != nil
    }

    private func logAttempt(_ configuration: TransferConfiguration) {
        let (attempt, redirects) = state.withLock { ($0.core.attempt, $0.core.redirectCount) }
        // What goes out, as libcurl sends it: it adds Host and `Accept: */*` itself unless the
        // list gives them (and a bare "Name:" line removes a header rather than sending it).
        var lines: [String] = []
        let sent = configuration.headerLines.filter { !Self.isRemoval($0) }
        if !sent.contains(where: { $0.lowercased().hasPrefix("host:") }),
            let components = URLComponents(string: configuration.url), let host = components.percentEncodedHost
        {
            lines.append("Host: " + host + (components.port.map { ":\($0)" } ?? ""))
        }
        lines += sent.map(Log.masked)
        if !sent.contains(where: { $0.lowercased().hasPrefix("accept:") }) { lines.append("Accept: */*") }
        lines += Log.presentedCredentialLines(configuration.authentication, besides: configuration.headerLines)
        if let cookie = configuration.cookie { lines.append(Log.masked("Cookie: " + cookie)) }
        if let value = configuration.authentication?.serverAuthorization {
            lines.append(Log.masked("Authorization: " + value))
        }
        let length = configuration.bodyLengthOnWire.map { "\($0) bytes" } ?? "of unknown length"
        let body = configuration.body == nil ? "" : ", body \(length)"
        // A redirect's next hop is not another try of the same request.
        let which = attempt.kind == .redirect ? "redirect \(redirects)" : "attempt \(attempt.number)"
        Log.message(
            "→ \(configuration.method) \(CredentialMask.url(configuration.url)) (\(which)\(body))\n    "
                + lines.joined(separator: "\n    "))
    }

    /// Whether a header line is libcurl's "Name:" that removes a header instead of sending one.
    private static func isRemoval(_ line: String) -> Bool {
        guard let colon = line.firstIndex(of: ":") else { return false }
        return line[line.index(after: colon)...].allSatisfy { $0 == " " || $0 == "\t" }
    }
}
