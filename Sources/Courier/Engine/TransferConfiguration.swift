import Foundation

/// Everything the engine needs to run one attempt of a request, fixed when the attempt starts.
///
/// A value built on the request's side and handed to the engine thread, which turns it into
/// libcurl options (`Transfer+Options.swift`); nothing in it refers back to the request.
struct TransferConfiguration: Sendable {
    var url: String
    /// The verb on the request line.
    var method: String
    /// Header lines exactly as libcurl takes them ("Name: value", "Name;" for an empty value,
    /// "Name:" to suppress a header libcurl would add).
    var headerLines: [String]
    /// The body to send, or nil for none.
    var body: RequestBodySource?
    var usesHTTP10: Bool
    /// The path goes out exactly as written, `/./` and `/../` included (`CURLOPT_PATH_AS_IS`):
    /// an S3 key may hold them, and the path was signed as it is.
    var sendsPathAsIs = false
    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`). 512 KiB for a download to a file: instead
    /// of libcurl's 16 KiB it took a 1 GiB loopback download from ~2.5 to ~3.6 GiB/s
    /// (reference/linux.md §7). 64 KiB otherwise: libcurl allocates the buffer for each transfer,
    /// and from 128 KiB up (malloc's mmap threshold) its pages came fresh every time, a page fault
    /// for each 4 KiB received — 64 KiB responses ran at half the speed.
    var receiveBufferSize: Int = Self.memoryReceiveBufferSize

    static let memoryReceiveBufferSize = 64 * 1024
    static let fileReceiveBufferSize = 512 * 1024
    /// Seconds without progress before the engine ends the attempt as timed out (≤ 0: never).
    var inactivityTimeout: Double
    /// Seconds for making the connection (`CURLOPT_CONNECTTIMEOUT_MS`; ≤ 0: libcurl's default).
    var connectTimeout: Double = 0
    /// Gzip the body while it is sent (a body with files, or a stream).
    var compressesBodyOnTheFly = false
    /// The gzipped length of a body compressed on the fly, measured before the attempt
    /// (`CompressedBody`); nil for a stream, whose gzipped length is unknown until it was sent.
    var compressedBodyLength: Int64?

    /// The body's length on the wire; nil: unknown, sent chunked.
    var bodyLengthOnWire: Int64? { compressesBodyOnTheFly ? compressedBodyLength : body?.length }
    /// Whether the sink wants byte counts as the transfer moves (coalesced by the engine).
    var reportsProgress = false
    /// Whether the response body will most likely be kept in memory: the transfer then reserves
    /// room for a small one as it is made (see `Transfer.smallBodyRoom`).
    var expectsBodyInMemory = false
    /// Whether the shared cookie jar sends and stores cookies for this transfer.
    var usesCookieEngine = true
    /// `CURLOPT_COOKIE`: the user's Cookie header and matching `requestCookies`, which libcurl
    /// sends in one Cookie field after the jar's cookies (nil: none).
    var cookie: String?
    /// `CURLOPT_CAINFO`: the certificates to trust, instead of the system's.
    var caBundlePath: String?
    /// False turns off certificate and host name checks (`CURLOPT_SSL_VERIFYPEER`/`VERIFYHOST`).
    var verifiesCertificate = true
    /// The identity presented to a TLS server that asks for one (`CURLOPT_SSLCERT` and the rest).
    var clientCertificate: ClientCertificate?
    /// False: a new connection, closed afterwards (`CURLOPT_FRESH_CONNECT`, `CURLOPT_FORBID_REUSE`).
    var reusesConnections = true
    /// The most whole seconds a connection may have idled to be reused (`CURLOPT_MAXAGE_CONN`).
    var connectionMaxAge: Int = 59
    /// Credentials and the proxy, for the few attempts that have any: one reference, so the
    /// configuration every attempt copies stays small.
    var authentication: TransferAuthentication?

    /// Whether the attempt sets options beyond a plain GET's profile, which the next transfer on
    /// the handle must not inherit.
    var hasAuthenticationOrProxy: Bool { authentication != nil }
}

/// What an attempt presents to the server and the proxy, and the proxy it goes through.
final class TransferAuthentication: Sendable {
    /// The credentials libcurl presents to the server, if any.
    let server: TransferCredentials?
    /// An `Authorization` value Courier computed itself, sent as a header line instead of
    /// libcurl's: Digest answering the challenge an earlier attempt received (`DigestAuthorization`).
    let serverAuthorization: String?
    /// `CURLOPT_PROXY`: the proxy to go through; nil leaves libcurl to the environment
    /// (`http_proxy`, `https_proxy`, `no_proxy`).
    let proxy: String?
    /// The credentials libcurl presents to the proxy, if any.
    let proxyCredentials: TransferCredentials?

    /// Nil when there is nothing to present and no proxy.
    static func make(
        server: TransferCredentials?, serverAuthorization: String? = nil, proxy: String?,
        proxyCredentials: TransferCredentials?
    ) -> Self? {
        guard server != nil || serverAuthorization != nil || proxy != nil || proxyCredentials != nil else {
            return nil
        }
        return Self(
            server: server, serverAuthorization: serverAuthorization, proxy: proxy, proxyCredentials: proxyCredentials)
    }

    init(
        server: TransferCredentials?, serverAuthorization: String? = nil, proxy: String?,
        proxyCredentials: TransferCredentials?
    ) {
        self.server = server
        self.serverAuthorization = serverAuthorization
        self.proxy = proxy
        self.proxyCredentials = proxyCredentials
    }

    var presentsCredentials: Bool { server != nil || proxyCredentials != nil }
}

/// A user name and password libcurl presents, and the methods it may answer a challenge with
/// (`CURLOPT_USERNAME`, `CURLOPT_PASSWORD` and `CURLOPT_HTTPAUTH`, or the `PROXY` ones). libcurl
/// does the wire work: Basic goes out at once, Digest answers the challenge of the same
/// transfer, NTLM runs its handshake on one connection.
struct TransferCredentials: Sendable {
    var user: String
    var password: String
    /// `CURLAUTH_*` bits.
    var methods: Int

    static let basic = 1 << 0  // CURLAUTH_BASIC
    static let digest = 1 << 1  // CURLAUTH_DIGEST
    static let ntlm = 1 << 3  // CURLAUTH_NTLM

    /// `credential` for `method`, or for whichever of the three the server asks (nil). An NTLM
    /// domain goes in front of the user name ("DOMAIN\user"), as libcurl takes it, for NTLM only.
    init(_ credential: StoredCredential, method: AuthenticationMethod?) {
        // The domain is NTLM's alone, as in ASI: with it in front, a Basic server refused the
        // user name. A credential with a domain and no method yet is offered for NTLM only, the
        // one scheme its user name is written for.
        let domain = credential.domain.flatMap { $0.isEmpty ? nil : $0 }
        password = credential.password
        switch (method, domain) {
        case (.basic, _): (user, methods) = (credential.user, Self.basic)
        case (.digest, _): (user, methods) = (credential.user, Self.digest)
        case (.ntlm, let domain?), (nil, let domain?): (user, methods) = (domain + "\\" + credential.user, Self.ntlm)
        case (.ntlm, nil): (user, methods) = (credential.user, Self.ntlm)
        case (nil, nil): (user, methods) = (credential.user, Self.basic | Self.digest | Self.ntlm)
        }
    }
}

/// What the request decided for a response body when its head arrived.
struct BodyHandling: Sendable {
    var plan: BodyPlan
    /// Inflate the body as it arrives, to at most this many bytes (nil: keep it as sent).
    var inflationLimit: Int64?

    init(_ plan: BodyPlan, inflationLimit: Int64? = nil) {
        self.plan = plan
        self.inflationLimit = inflationLimit
    }
}

/// Where a response body goes, chosen by the request when the final head arrives.
enum BodyPlan: Sendable, Equatable {
    /// Collected in memory and handed over at completion.
    case memory
    /// Not wanted: a HEAD response, or the body of a redirect being followed.
    case discard
    /// Written to a file, appended when resuming.
    case file(path: String, appending: Bool)
    /// Handed to the request chunk by chunk (a data delegate); the transfer pauses when the
    /// request has too much undelivered.
    case stream
}

/// The status line and header fields of one final (non-1xx) response.
struct ResponseHead: Sendable {
    var statusCode: Int
    /// The whole status line, "HTTP/1.1 404 Not Found".
    var statusLine: String
    /// The fields as they arrived; `headers` parses them.
    var headerBlock: RawHeaderBlock
    /// The Content-Length field's value, read as the head arrived (nil when absent or odd).
    var contentLength: Int64? = nil
    /// The `timeout` of a Keep-Alive field: how long the server keeps the connection idle, in
    /// seconds (up to 18 hours). 16 bits fit in the head's padding: a wider field grew every
    /// copy of a head and of a transfer, ~100 instructions of a small GET (Benchmarks/).
    var keepAliveTimeout: UInt16? = nil
    /// False only when the head was read without a Content-Encoding field (the parser notes it
    /// as the lines pass): the block is then not searched for codings, ~1,000 instructions of a
    /// small GET (Benchmarks/, issue 33). True, the safe answer, for a head made any other way.
    var hasContentEncoding = true

    /// Every field, parsed now.
    var headers: HTTPHeaders { headerBlock.parsed() }
}

/// What one attempt produced, handed from the engine thread to the request.
struct TransferOutcome: Sendable {
    /// libcurl's result, or a Courier-made failure (inactivity timeout, cancel).
    var failure: HTTPRequestError?
    var head: ResponseHead?
    var body: Data
    var bytesReceived: Int64
    var bytesSent: Int64
    var metrics: RequestMetrics
    /// The URL libcurl says the server redirects to (`CURLINFO_REDIRECT_URL`), if any.
    var redirectURL: String?
}
