/// Where an attempt's time went, in seconds from its start, as libcurl measured it.
public struct RequestMetrics: Sendable, Hashable {
    /// Name lookup done (`CURLINFO_NAMELOOKUP_TIME_T`).
    public var dns: Double
    /// TCP connection made (`CURLINFO_CONNECT_TIME_T`).
    public var connect: Double
    /// TLS handshake done (`CURLINFO_APPCONNECT_TIME_T`); 0 for plain http.
    public var tls: Double
    /// First response byte about to arrive (`CURLINFO_STARTTRANSFER_TIME_T`).
    public var firstByte: Double
    /// The whole attempt (`CURLINFO_TOTAL_TIME_T`).
    public var total: Double

    /// Metrics with the given seconds, 0 for each one not given.
    public init(dns: Double = 0, connect: Double = 0, tls: Double = 0, firstByte: Double = 0, total: Double = 0) {
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.firstByte = firstByte
        self.total = total
    }
}
