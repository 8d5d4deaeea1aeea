extension TestServer {
    /// How many `401` challenges the server has sent for `route` (one of the authentication
    /// routes, e.g. ``Route/digestAuth(user:password:qop:stale:)``) since it started or
    /// ``resetRecords()`` was last called. Routes with different arguments count separately.
    public func challengesSent(for route: Route) -> Int {
        core.hits(forKey: HTTPAuthentication.challengeKey(forRoutePath: route.path))
    }

    /// How many `407` challenges the server, acting as a proxy, has sent since it started or
    /// ``resetRecords()`` was last called.
    public var proxyChallengesSent: Int {
        core.hits(forKey: ServerCore.proxyChallengeKey)
    }

    /// The complete requests received for `route` (whose target, in origin or absolute form,
    /// parses as that route), in order.
    public func recordedRequests(for route: Route) -> [RecordedRequest] {
        recordedRequests.filter { Route(path: $0.target) == route }
    }

    /// The `Authorization` value of each request received for `route`, in order; nil for a
    /// request that carried none. For checking when a client sends credentials and when not.
    public func authorizations(for route: Route) -> [String?] {
        recordedRequests(for: route).map { $0.header("Authorization") }
    }
}
