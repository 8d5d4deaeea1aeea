import Foundation

/// The proxy a request goes through, as credentials are keyed: host and port.
struct ProxyAddress: Sendable, Hashable {
    var host: String
    var port: Int

    /// libcurl's port for a proxy URL without one (`CURLOPT_PROXYPORT`'s default).
    static let defaultPort = 1080

    /// `CURLOPT_PROXY` for a proxy set on the request: the scheme says the protocol
    /// (libcurl reads it before `CURLOPT_PROXYTYPE`), an IPv6 address goes in brackets.
    func curlValue(_ type: ProxyType) -> String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(type.scheme)://\(name):\(port)"
    }

    /// The environment's proxy for `url` as a user would name it in a message, "http://host:port",
    /// without any credentials its variable holds; nil when `url` goes direct.
    static func environmentDescription(for url: URL) -> String? {
        guard let value = environmentValue(for: url) else { return nil }
        let withScheme = value.contains("://") ? value : "http://" + value
        guard var components = URLComponents(string: withScheme), components.host != nil else { return value }
        components.user = nil
        components.password = nil
        components.path = ""
        return components.string ?? value
    }

    /// The proxy set on the request, or else the one the environment gives for `url`, as libcurl
    /// reads it (`http_proxy`, `HTTPS_PROXY` or `https_proxy`, `ALL_PROXY`/`all_proxy`; `no_proxy`
    /// names hosts that go direct). Nil when the request goes direct.
    static func effective(host: String?, port: Int, for url: URL) -> ProxyAddress? {
        if let host, !host.isEmpty { return ProxyAddress(host: host.lowercased(), port: port > 0 ? port : defaultPort) }
        guard let value = environmentValue(for: url) else { return nil }
        let withScheme = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: withScheme), let proxyHost = components.host else { return nil }
        return ProxyAddress(host: proxyHost.lowercased(), port: components.port ?? defaultPort)
    }

    /// The value of the environment variable that names the proxy for `url`.
    private static func environmentValue(for url: URL) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let isHTTPS = url.scheme?.lowercased() == "https"
        // libcurl reads only the lower-case http_proxy (the upper case is a CGI header's name).
        let names = isHTTPS ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        guard let value = (names + ["all_proxy", "ALL_PROXY"]).lazy.compactMap({ environment[$0] }).first,
            !value.isEmpty, !bypasses(url, environment["no_proxy"] ?? environment["NO_PROXY"])
        else { return nil }
        return value
    }

    /// `no_proxy`'s rule: "*", or a host or domain suffix from the comma-separated list.
    private static func bypasses(_ url: URL, _ list: String?) -> Bool {
        guard let list, let host = url.host?.lowercased() else { return false }
        for entry in list.split(separator: ",") {
            let name = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "*" { return true }
            let domain = name.hasPrefix(".") ? String(name.dropFirst()) : name
            if !domain.isEmpty, host == domain || host.hasSuffix("." + domain) { return true }
        }
        return false
    }
}
