import Courier
import Foundation

/// A proxy given as a URL (`--proxy socks5h://user:pass@127.0.0.1:1080`), split into what
/// `HTTPRequest` takes: type, host, port and credentials.
struct ProxySetting: Equatable {
    let type: ProxyType
    let host: String
    let port: Int
    let username: String?
    let password: String?

    /// The ports libcurl assumes when a proxy URL has none.
    private static let defaultPorts: [ProxyType: Int] = [
        .http: 1080, .https: 443, .socks4: 1080, .socks4a: 1080, .socks5: 1080, .socks5h: 1080,
    ]

    /// A bare "host:port" is an HTTP proxy, as curl takes it.
    init(parsing text: String, command: String) throws(UsageError) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased(),
            let type = ProxyType(rawValue: scheme), let host = components.host, !host.isEmpty
        else {
            throw UsageError(
                "--proxy needs a URL like http://HOST:PORT or socks5h://HOST:PORT "
                    + "(got \"\(CredentialMask.url(text))\")",
                command: command)
        }
        self.type = type
        self.host = host
        port = components.port ?? Self.defaultPorts[type, default: 1080]
        username = components.percentEncodedUser?.removingPercentEncoding
        password = components.percentEncodedPassword?.removingPercentEncoding
    }

    /// Sets the request's proxy to this one.
    func configure(_ request: HTTPRequest) {
        request.proxyType = type
        request.proxyHost = host
        request.proxyPort = port
        if let username { request.proxyUsername = username }
        if let password { request.proxyPassword = password }
    }
}
