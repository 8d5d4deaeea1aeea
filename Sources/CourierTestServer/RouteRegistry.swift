/// Every kind of route the server serves, and the lookup from a request-target to one.
enum RouteRegistry {
    /// All endpoint kinds. Kinds sharing a first segment are tried in this order, so a
    /// more specific form comes before a catch-all one.
    static let endpoints: [any Endpoint.Type] = [
        EchoResponder.self, StatusResponder.self, BytesResponder.self, ChunkedBytesResponder.self,
        CharsetResponder.self, HeadersResponder.self, TextResponder.self,
        // Fault routes.
        StallResponder.self, TrickleResponder.self, DropMidHeadersResponder.self, DropMidBodyResponder.self,
        DropMidChunkedResponder.self, ResetResponder.self, MalformedStatusResponder.self,
        StallTimesResponder.self, StatusTimesResponder.self, StallMidBodyTimesResponder.self,
        RedirectResponder.self, RefuseBodyResponder.self, TokenResponder.self, DelayResponder.self,
        // Compression routes.
        CompressedBytesResponder.self, GzipChunkedResponder.self, CorruptGzipResponder.self,
        GzipBombResponder.self, GzipThenCorruptResponder.self, GunzipEchoResponder.self,
        // Authentication routes.
        BasicAuthResponder.self, DigestAuthResponder.self, BothAuthResponder.self, EndlessAuthResponder.self,
        PostAuthResponder.self, NTLMAuthResponder.self,
        // Cache routes.
        CacheableResponder.self, LastModifiedResponder.self,
        // Transport fault routes (issue 20).
        VerbatimResponder.self, HugeHeaderResponder.self, ManyHeadersResponder.self,
        InformationalFloodResponder.self, RedirectLoopResponder.self,
        // Framing and content-coding routes (issue 20).
        FramedBytesResponder.self, EncodedBytesResponder.self,
    ]

    /// The kinds by first segment, in ``endpoints`` order.
    private static let bySegment: [String: [any Endpoint.Type]] = {
        var table: [String: [any Endpoint.Type]] = [:]
        for kind in endpoints {
            for segment in kind.segments { table[segment, default: []].append(kind) }
        }
        return table
    }()

    /// Whether some kind of route takes paths starting with `segment`.
    static func isRouteSegment(_ segment: String) -> Bool {
        bySegment[segment] != nil
    }

    /// The endpoint a target names, or nil if no kind takes it.
    static func endpoint(for target: RouteTarget) -> (any Endpoint)? {
        for kind in bySegment[target.first] ?? [] {
            if let endpoint = kind.init(target) { return endpoint }
        }
        return nil
    }
}
