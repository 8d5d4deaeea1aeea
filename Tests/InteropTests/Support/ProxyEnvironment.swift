import Foundation

/// The proxy variables of the process environment, set for the length of a test.
enum ProxyEnvironment {
    /// Every variable libcurl (and Courier) reads to pick a proxy.
    static let names = [
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// Runs `body` with exactly `values` of ``names`` set (the others unset), then puts back what
    /// was there. libcurl reads the environment when a transfer starts, so the requests must
    /// finish inside `body` (the tests run one at a time, so no other request reads it meanwhile).
    static func with<T>(_ values: [String: String] = [:], _ body: () throws -> T) rethrows -> T {
        let saved = names.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for name in names {
            if let value = values[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try body()
    }
}
