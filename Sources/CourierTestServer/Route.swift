/// An endpoint a ``TestServer`` serves. Use ``TestServer/url(_:)`` to get a route's URL.
///
/// Routes are made with the static members documented beside each route, e.g.
/// `.status(404)`, `.bytes(1000)` or `.echo`; each lives in its own file under
/// `Routes/` together with its path, its parsing and its responder (see ``Endpoint``).
///
/// Every route answers every method; `HEAD` gets the same head (including the
/// `Content-Length` the `GET` would have) with no body. Any other path gets
/// `404 Not Found` with the body `no such route`.
///
/// The fault routes (``stall``, ``trickle(_:intervalMilliseconds:)`` and the others that
/// stall, drop or reset) misbehave on purpose, to test how a client copes with servers
/// that hang, dribble, hang up or answer garbage. Those that hold a connection wake
/// early when the client closes it or the server stops, and count the client's close in
/// ``TestServer/connectionsClosedByClient``.
///
/// Two routes are equal when they are the same kind with the same arguments; a route
/// parsed back from its ``path`` equals the route (``init(path:)``).
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// What the route is: its arguments, its path, and how it responds.
    let endpoint: any Endpoint

    init(_ endpoint: any Endpoint) {
        self.endpoint = endpoint
    }

    /// The path and query of the route, percent-encoded, e.g. `"/status/404"` or
    /// `"/headers?X-Name=a%20b"`.
    public var path: String { endpoint.path }

    /// For routes whose body is ``TestServer/deterministicBytes(count:offset:)`` (``bytes(_:)``
    /// and ``chunked(_:)``), how many of those bytes a `GET` gets; nil for every other route.
    public var deterministicByteCount: Int? { endpoint.deterministicByteCount }

    /// Recognises a request-target, the inverse of ``path``.
    ///
    /// Accepts origin-form (`/status/404`) and absolute-form
    /// (`http://127.0.0.1:8080/status/404`, as sent to a proxy). Numbers must be plain
    /// non-negative decimals. Each route's documentation gives its forms.
    ///
    /// - Returns: nil for paths the server does not serve (answered with 404).
    public init?(path target: String) {
        guard let endpoint = RouteRegistry.endpoint(for: RouteTarget(target)) else { return nil }
        self.init(endpoint)
    }

    /// The route's ``path``.
    public var description: String { path }

    public static func == (lhs: Route, rhs: Route) -> Bool {
        lhs.endpoint.isEqual(to: rhs.endpoint)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: endpoint)))
        endpoint.hash(into: &hasher)
    }
}
