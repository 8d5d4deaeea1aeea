import CCurl
import Foundation

extension Transfer {
    /// Turns the configuration into libcurl options on `handle`, with `context` (this transfer's
    /// retained `CallbackContext`) as the callbacks' pointer. Engine thread only.
    func apply(to handle: EasyHandle, share: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer) throws {
        let profile = HandleProfile(configuration, share: share)
        // Credentials need a handle reset first: libcurl keeps what it learnt of a Digest
        // challenge (the nonce) in the handle, and a stale nonce from an earlier transfer would go
        // out again before this transfer's own challenge.
        if handle.options == .kept(profile), !configuration.hasAuthenticationOrProxy {
            handle.clearErrorText()
        } else {
            if handle.options != .fresh { try handle.reset() }
            try profile.apply(to: handle)
        }
        // From here on the handle holds options of this transfer, whatever happens below.
        handle.options = .mixed

        try handle.set(CURLOPT_URL, configuration.url)
        try handle.setContext(context)
        let isPlainGET = try applyMethodAndBody(to: handle, context: context)

        var lines = headerLinesWithoutExpectForChunkedBodies
        if let value = configuration.authentication?.serverAuthorization { lines.append("Authorization: " + value) }
        try handle.setHeaderLines(lines)
        // The user's cookies go through CURLOPT_COOKIE, not a header line: libcurl then puts
        // them in the one Cookie field with the jar's (a Cookie header line would be a second).
        if let cookie = configuration.cookie { try handle.set(CURLOPT_COOKIE, cookie) }
        if let authentication = configuration.authentication { try apply(authentication, to: handle) }
        // A plain GET leaves nothing of its own behind but the URL and the header list, which
        // the next transfer sets again. The engine downgrades this to `.mixed` if the transfer
        // does not end well. CURLOPT_COOKIE would stay for the next transfer: not kept.
        if isPlainGET, !configuration.hasAuthenticationOrProxy, configuration.cookie == nil {
            handle.options = .kept(profile)
        }
    }

    /// The credentials and the proxy. libcurl copies the strings it is given.
    private func apply(_ authentication: TransferAuthentication, to handle: EasyHandle) throws {
        if let credentials = authentication.server {
            try handle.set(CURLOPT_USERNAME, credentials.user)
            try handle.set(CURLOPT_PASSWORD, credentials.password)
            try handle.set(CURLOPT_HTTPAUTH, credentials.methods)
        }
        if let proxy = authentication.proxy {
            try handle.set(CURLOPT_PROXY, proxy)
            // The proxy set on the request wins: without an empty CURLOPT_NOPROXY libcurl would
            // still read `no_proxy` from the environment and go direct to the hosts it names.
            try handle.set(CURLOPT_NOPROXY, "")
        }
        if let credentials = authentication.proxyCredentials {
            try handle.set(CURLOPT_PROXYUSERNAME, credentials.user)
            try handle.set(CURLOPT_PROXYPASSWORD, credentials.password)
            try handle.set(CURLOPT_PROXYAUTH, credentials.methods)
        }
    }

    /// The error naming the proxy when the failure is the proxy's (set on the request, or from
    /// the environment, read only now that something failed).
    private func proxyFailure(_ code: CURLcode, handle: EasyHandle) -> HTTPRequestError? {
        let url = url
        guard let proxy = configuration.authentication?.proxy ?? url.flatMap(ProxyAddress.environmentDescription)
        else { return nil }
        return CurlErrorMapping.proxyError(
            for: code, text: handle.errorText, url: url, proxy: proxy,
            proxyCertificateFailed: handle.info(long: CURLINFO_PROXY_SSL_VERIFYRESULT) != 0)
    }

    /// The header lines, with "Expect:" (libcurl's documented way to send no Expect) added for a
    /// body sent chunked: libcurl would ask `Expect: 100-continue` for every body of unknown
    /// length and then wait up to a second for the 100 (`CURLOPT_EXPECT_100_TIMEOUT_MS`). ASI
    /// never sent Expect and many servers and proxies handle it poorly; a chunked body now goes
    /// as a small one does. A user's own Expect line is sent as given.
    private var headerLinesWithoutExpectForChunkedBodies: [String] {
        let lines = configuration.headerLines
        guard configuration.body != nil, configuration.bodyLengthOnWire == nil,
            !lines.contains(where: { $0.utf8.count >= 7 && $0.prefix(7).lowercased() == "expect:" })
        else { return lines }
        return lines + ["Expect:"]
    }

    /// The verb and the body. A body is always sent in POST mode with the verb overridden
    /// (`CURLOPT_CUSTOMREQUEST`), so PUT, PATCH and DELETE bodies go the same way and libcurl only
    /// asks for `Expect: 100-continue` on large bodies of known length (over 1 MiB); a chunked
    /// body goes without (`headerLinesWithoutExpectForChunkedBodies`).
    ///
    /// Returns true for a plain GET, which sets nothing: GET is what a handle in its fresh state
    /// (or kept by a plain GET before) does.
    private func applyMethodAndBody(to handle: EasyHandle, context: UnsafeMutableRawPointer) throws -> Bool {
        let config = configuration
        switch config.method {
        case "HEAD":
            // CUSTOMREQUEST "HEAD" would wait for a body that never comes.
            try handle.set(CURLOPT_NOBODY, true)
            return false
        case "GET" where config.body == nil:
            return true
        default:
            break
        }
        if let body = config.body {
            let reader = makeBodyReader(for: body)
            bodyReader =
                config.compressesBodyOnTheFly
                ? GzipBodyReader(source: reader, expectedLength: config.compressedBodyLength) : reader
            try handle.set(CURLOPT_POST, true)
            // -1: unknown, sent chunked (the request adds Transfer-Encoding: chunked).
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: config.bodyLengthOnWire ?? -1)
            try handle.setBodyContext(context)
            try handle.set(CURLOPT_READFUNCTION, callback: TransferCallbacks.read)
            try handle.setSeekCallback(TransferCallbacks.seek)
            if config.method != "POST" { try handle.set(CURLOPT_CUSTOMREQUEST, config.method) }
        } else if config.method == "POST" {
            try handle.set(CURLOPT_POST, true)
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: 0)
        } else {
            try handle.set(CURLOPT_CUSTOMREQUEST, config.method)
        }
        return false
    }

    private func makeBodyReader(for body: RequestBodySource) -> any BodyReader {
        switch body {
        case .segments(let segments, _):
            return SegmentBodyReader(segments: segments, url: url)
        case .stream(_, let maker):
            return StreamBodyReader(maker: maker, url: url) { [weak self] in
                guard let self else { return }
                Engine.shared.resume(self, from: .producer)
            }
        }
    }

    /// Reads what libcurl measured once the handle has left the multi handle.
    func outcome(from handle: EasyHandle, code: CURLcode) -> TransferOutcome {
        // A challenge that ended the transfer without a body is its response.
        if heldChallenge != nil { _ = deliverHeldChallenge() }
        let metrics = RequestMetrics(
            dns: handle.info(seconds: CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.info(seconds: CURLINFO_CONNECT_TIME_T),
            tls: handle.info(seconds: CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.info(seconds: CURLINFO_STARTTRANSFER_TIME_T),
            total: handle.info(seconds: CURLINFO_TOTAL_TIME_T)
        )
        var failure = engineFailure
        // A proxy asking for credentials on the CONNECT of an https tunnel ends the transfer
        // ("CONNECT tunnel failed, response 407"); its 407 head, already delivered, is the
        // response: the request answers it as any 407 and tries again.
        let isTunnelChallenge =
            code != CURLE_OK && head?.statusCode == 407 && handle.info(long: CURLINFO_HTTP_CONNECTCODE) == 407
        if failure == nil, code != CURLE_OK, !isTunnelChallenge {
            // Before the head is complete, an oversized head is the server's fault, not the engine's.
            let headFailure =
                head == nil ? CurlErrorMapping.oversizedHeadError(for: code, text: handle.errorText, url: url) : nil
            failure =
                proxyFailure(code, handle: handle) ?? headFailure
                ?? CurlErrorMapping.error(
                    for: code, text: handle.errorText, url: url, clientCertificate: configuration.clientCertificate)
        }
        if failure == nil, let inflater {
            do {
                try inflater.finish()
            } catch {
                failure = HTTPRequestError(type: .compression, message: "\(error)", url: url, underlyingError: error)
            }
        }
        if failure == nil, head == nil {
            // libcurl 7.88 accepts a connection closed in the middle of the headers as the end of
            // the response; a response without complete headers is no response.
            failure = HTTPRequestError(
                type: .connectionFailure,
                message: "The connection closed before the response headers were complete", url: url)
        }
        return TransferOutcome(
            failure: failure,
            head: head,
            body: takeBody(),
            bytesReceived: bytesReceived,
            bytesSent: handle.info(offset: CURLINFO_SIZE_UPLOAD_T),
            metrics: metrics,
            // Only a redirect has one; reading it makes a String, so skip it for the rest.
            redirectURL: (300..<400).contains(head?.statusCode ?? 0) ? handle.info(string: CURLINFO_REDIRECT_URL) : nil
        )
    }
}
