import Foundation

/// One way to reach a URL that a PAC file's `FindProxyForURL` names: straight to the server, or
/// through a proxy. A PAC answer is a list of them, tried in order.
enum PACChoice: Sendable, Hashable, CustomStringConvertible {
    case direct
    case proxy(Kind, host: String, port: Int)

    /// The PAC keyword's kind of proxy.
    enum Kind: String, Sendable, Hashable {
        /// "PROXY" (and Chromium's "HTTP").
        case http
        /// "HTTPS": TLS to the proxy.
        case https
        /// "SOCKS" and "SOCKS4": SOCKS 4, the name resolved here, as Chromium reads "SOCKS".
        case socks4
        /// "SOCKS5": the proxy resolves the name, as browsers do (libcurl's socks5h).
        case socks5

        /// libcurl's scheme for `CURLOPT_PROXY`, which takes precedence over `CURLOPT_PROXYTYPE`.
        var curlScheme: String {
            switch self {
            case .http: "http"
            case .https: "https"
            case .socks4: "socks4"
            case .socks5: "socks5h"
            }
        }

        /// The `proxyType` that sends a request as this kind of entry does (SOCKS5 is socks5h:
        /// the proxy resolves the name).
        var proxyType: ProxyType {
            switch self {
            case .http: .http
            case .https: .https
            case .socks4: .socks4
            case .socks5: .socks5h
            }
        }

        /// The port a PAC entry without one means.
        var defaultPort: Int {
            switch self {
            case .http: 80
            case .https: 443
            case .socks4, .socks5: 1080
            }
        }
    }

    /// `CURLOPT_PROXY` for this choice: "" for DIRECT, which also keeps libcurl from the
    /// `http_proxy` environment (an empty `CURLOPT_PROXY` disables every proxy).
    var curlProxy: String {
        switch self {
        case .direct: ""
        case .proxy(let kind, let host, let port):
            "\(kind.curlScheme)://" + Self.authority(host, port)
        }
    }

    /// "host:port", an IPv6 host in brackets (as URLs and PAC files write it).
    private static func authority(_ host: String, _ port: Int) -> String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The proxy's address, as credentials are keyed; nil for DIRECT.
    var address: ProxyAddress? {
        guard case .proxy(_, let host, let port) = self else { return nil }
        return ProxyAddress(host: host, port: port)
    }

    /// The choice as a PAC file writes it ("PROXY proxy.example:8080").
    var description: String {
        switch self {
        case .direct: "DIRECT"
        case .proxy(let kind, let host, let port):
            "\(kind == .http ? "PROXY" : kind == .socks4 ? "SOCKS" : kind.rawValue.uppercased()) "
                + Self.authority(host, port)
        }
    }

    /// The choices of a `FindProxyForURL` answer ("PROXY a:8080; SOCKS5 b:1080; DIRECT"), in its
    /// order. Entries that are not understood are skipped (and returned, to be logged), as
    /// browsers do; an answer with no usable entry at all is an error, since there is then no
    /// way to go on that the file meant.
    static func parse(_ answer: String) -> (choices: [PACChoice], skipped: [String]) {
        var choices: [PACChoice] = []
        var skipped: [String] = []
        for entry in answer.split(separator: ";") {
            let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            guard !words.isEmpty else { continue }
            if let choice = choice(words) {
                choices.append(choice)
            } else {
                skipped.append(entry.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return (choices, skipped)
    }

    private static func choice(_ words: [Substring]) -> PACChoice? {
        let keyword = words[0].uppercased()
        if keyword == "DIRECT" { return words.count == 1 ? .direct : nil }
        guard words.count == 2 else { return nil }
        let kind: Kind
        switch keyword {
        case "PROXY", "HTTP": kind = .http
        case "HTTPS": kind = .https
        case "SOCKS", "SOCKS4": kind = .socks4
        case "SOCKS5": kind = .socks5
        default: return nil
        }
        guard let (host, port) = hostAndPort(words[1], defaultPort: kind.defaultPort) else { return nil }
        return .proxy(kind, host: host, port: port)
    }

    /// "host", "host:port", "[v6]" or "[v6]:port"; the host lower-cased.
    private static func hostAndPort(_ text: Substring, defaultPort: Int) -> (String, Int)? {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }
        guard !host.isEmpty, allowed else { return nil }
        var port = defaultPort
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { return nil }
            port = number
        }
        return (host.lowercased(), port)
    }
}
