import Foundation

/// What a `RequestFactory` puts on every request it makes.
///
/// The defaults are NSURLRequest's, as ABRequestManager's options were: no base path, 60 s,
/// no headers, cookies on, the default cache policy. A request made without a factory keeps
/// ASI's defaults (`HTTPRequest.defaultTimeOutSeconds`, 10 s).
public struct RequestOptions: Sendable {
    /// The URL relative paths are joined to: "http://127.0.0.1:8080/api" + "users/1".
    public var basePath: String?
    /// `timeOutSeconds` for each request (60, NSURLRequest's `timeoutInterval`).
    public var timeout: TimeInterval
    /// Headers added to each request.
    public var headers: HTTPHeaders
    /// `useCookiePersistence` for each request.
    public var cookies: Bool
    /// `cachePolicy` for each request.
    public var cachePolicy: CachePolicy

    /// Options with NSURLRequest's defaults, or the given values.
    public init(
        basePath: String? = nil, timeout: TimeInterval = RequestOptions.defaultTimeout,
        headers: HTTPHeaders = [:], cookies: Bool = true, cachePolicy: CachePolicy = .useDefault
    ) {
        self.basePath = basePath
        self.timeout = timeout
        self.headers = headers
        self.cookies = cookies
        self.cachePolicy = cachePolicy
    }

    /// NSURLRequest's default `timeoutInterval`.
    public static let defaultTimeout: TimeInterval = 60
}

/// Makes configured requests for an API: ABRequestManager's request factory.
///
/// ```swift
/// let api = RequestFactory()
/// api.options.basePath = "http://127.0.0.1:8080/api"
/// api.options.headers["Accept"] = "application/json"
/// let request = api.get("users/1")
/// ```
///
/// `@unchecked Sendable`: `options` is guarded by its lock.
public final class RequestFactory: @unchecked Sendable {
    /// A factory for the whole program.
    public static let shared = RequestFactory()

    private let lockedOptions = Locked(RequestOptions())

    /// A factory of its own, with `RequestOptions`' defaults (no base path, 60 s, no headers,
    /// cookies on, `.useDefault`).
    public init() {}

    /// What every request made from now on gets. Any thread.
    public var options: RequestOptions {
        get { lockedOptions.current }
        set { lockedOptions.withLock { $0 = newValue } }
    }

    /// A GET for `path`.
    public func get(_ path: String) -> HTTPRequest {
        request(path, method: "GET", data: nil)
    }

    /// A POST of `data` to `path`.
    public func post(_ path: String, data: Data?) -> HTTPRequest {
        request(path, method: "POST", data: data)
    }

    /// A PUT of `data` to `path`.
    public func put(_ path: String, data: Data?) -> HTTPRequest {
        request(path, method: "PUT", data: data)
    }

    /// A DELETE of `path`.
    public func delete(_ path: String) -> HTTPRequest {
        request(path, method: "DELETE", data: nil)
    }

    /// A request of any verb; `type` makes a subclass (`as: LoginRequest.self`). A path that
    /// makes no URL gives a request that fails with `unableToCreateRequest` when started.
    public func request<Request: HTTPRequest>(
        _ path: String, method: String, data: Data?, as type: Request.Type = HTTPRequest.self
    ) -> Request {
        let options = self.options
        let request: Request
        if let url = Self.url(for: path, basePath: options.basePath) {
            request = type.init(url: url)
        } else {
            request = type.init(url: URL(string: "about:blank")!)
            request.state.withLock { $0.config.hasNoURL = true }
        }
        request.requestMethod = method
        request.postBody = data
        request.timeOutSeconds = options.timeout
        request.useCookiePersistence = options.cookies
        request.cachePolicy = options.cachePolicy
        for (name, value) in options.headers { request.addRequestHeader(name, value: value) }
        return request
    }

    /// `path` joined to `basePath` with one slash between; an absolute URL is taken as it is.
    static func url(for path: String, basePath: String?) -> URL? {
        if let absolute = URL(string: path), absolute.scheme != nil { return absolute }
        guard let basePath, !basePath.isEmpty else { return URL(string: path) }
        let base = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        let tail = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return URL(string: tail.isEmpty ? base : base + "/" + tail)
    }
}
