import CCurl
import Foundation

extension Transfer {
    /// The receive buffer: 512 KiB instead of libcurl's 16 KiB took a 1 GiB loopback download
    /// from ~2.5 to ~3.6 GiB/s (`CURLOPT_BUFFERSIZE`, reference/linux.md §7).
    static let receiveBufferSize = 512 * 1024

    /// Turns the configuration into libcurl options on `handle`. Engine thread only.
    func apply(to handle: EasyHandle, share: UnsafeMutableRawPointer) throws {
        let config = configuration
        let context = Unmanaged.passUnretained(self).toOpaque()

        try handle.set(CURLOPT_URL, config.url)
        // Safety and threading defaults libcurl does not have on its own.
        try handle.set(CURLOPT_NOSIGNAL, true)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Courier follows redirects itself, to apply ASI's method and credential rules.
        try handle.set(CURLOPT_FOLLOWLOCATION, false)
        try handle.set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        try handle.set(CURLOPT_SHARE, pointer: share)
        if config.usesCookieEngine {
            // An empty file name turns on libcurl's in-memory cookie engine; the share handle
            // makes the jar one for all transfers (CURLOPT_COOKIEFILE, CURLOPT_SHARE).
            try handle.set(CURLOPT_COOKIEFILE, "")
        }

        try handle.set(CURLOPT_HEADERFUNCTION, callback: TransferCallbacks.header)
        try handle.set(CURLOPT_HEADERDATA, pointer: context)
        try handle.set(CURLOPT_WRITEFUNCTION, callback: TransferCallbacks.write)
        try handle.set(CURLOPT_WRITEDATA, pointer: context)

        if let caBundlePath = config.caBundlePath { try handle.set(CURLOPT_CAINFO, caBundlePath) }
        if !config.verifiesCertificate {
            try handle.set(CURLOPT_SSL_VERIFYPEER, false)
            try handle.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if config.reusesConnections {
            try handle.set(CURLOPT_MAXAGE_CONN, config.connectionMaxAge)
            if config.url.lowercased().hasPrefix("https:") {
                // Wait for a TLS connection being set up to offer HTTP/2 multiplexing instead of
                // opening another beside it. Never for plain http: there a busy HTTP/1.1
                // connection would hold back every other request to the host.
                try handle.set(CURLOPT_PIPEWAIT, true)
            }
        } else {
            try handle.set(CURLOPT_FRESH_CONNECT, true)
            try handle.set(CURLOPT_FORBID_REUSE, true)
        }
        if config.usesHTTP10 {
            try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_0))
        }
        try applyMethodAndBody(to: handle, context: context)

        var list: UnsafeMutablePointer<curl_slist>?
        for line in config.headerLines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError(CURLE_OUT_OF_MEMORY)
            }
            list = appended
        }
        headerList = list
        try handle.set(CURLOPT_HTTPHEADER, list: list)
    }

    /// The verb and the body. A body is always sent in POST mode with the verb overridden
    /// (`CURLOPT_CUSTOMREQUEST`), so PUT, PATCH and DELETE bodies go the same way and libcurl only
    /// asks for `Expect: 100-continue` on large bodies.
    private func applyMethodAndBody(to handle: EasyHandle, context: UnsafeMutableRawPointer) throws {
        let config = configuration
        switch config.method {
        case "HEAD":
            // CUSTOMREQUEST "HEAD" would wait for a body that never comes.
            try handle.set(CURLOPT_NOBODY, true)
            return
        case "GET" where config.body == nil:
            try handle.set(CURLOPT_HTTPGET, true)
            return
        default:
            break
        }
        if let body = config.body {
            let reader = makeBodyReader(for: body)
            bodyReader = config.compressesBodyOnTheFly ? GzipBodyReader(source: reader) : reader
            try handle.set(CURLOPT_POST, true)
            // -1: unknown, sent chunked (the request adds Transfer-Encoding: chunked).
            let length = config.compressesBodyOnTheFly ? nil : body.length
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: length ?? -1)
            try handle.set(CURLOPT_READFUNCTION, callback: TransferCallbacks.read)
            try handle.set(CURLOPT_READDATA, pointer: context)
            try handle.setSeekCallback(TransferCallbacks.seek)
            try handle.set(CURLOPT_SEEKDATA, pointer: context)
            if config.method != "POST" { try handle.set(CURLOPT_CUSTOMREQUEST, config.method) }
        } else if config.method == "POST" {
            try handle.set(CURLOPT_POST, true)
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: 0)
        } else {
            try handle.set(CURLOPT_CUSTOMREQUEST, config.method)
        }
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
        let metrics = RequestMetrics(
            dns: handle.info(seconds: CURLINFO_NAMELOOKUP_TIME_T),
            connect: handle.info(seconds: CURLINFO_CONNECT_TIME_T),
            tls: handle.info(seconds: CURLINFO_APPCONNECT_TIME_T),
            firstByte: handle.info(seconds: CURLINFO_STARTTRANSFER_TIME_T),
            total: handle.info(seconds: CURLINFO_TOTAL_TIME_T)
        )
        var failure = engineFailure
        if failure == nil, code != CURLE_OK {
            failure = CurlErrorMapping.error(for: code, text: handle.errorText, url: url)
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
            body: receivedBody,
            bytesReceived: bytesReceived,
            bytesSent: handle.info(offset: CURLINFO_SIZE_UPLOAD_T),
            metrics: metrics,
            // Only a redirect has one; reading it makes a String, so skip it for the rest.
            redirectURL: (300..<400).contains(head?.statusCode ?? 0) ? handle.info(string: CURLINFO_REDIRECT_URL) : nil
        )
    }
}
