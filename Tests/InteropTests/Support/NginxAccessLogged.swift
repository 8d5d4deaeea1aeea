import Foundation

/// An nginx whose requests are logged at `accessLogURL` in ``AccessLogEntry``'s format: the shared
/// ``InteropServers`` and the web-page site.
protocol NginxAccessLogged {
    var accessLogURL: URL { get }
}

extension NginxAccessLogged {
    /// Every request nginx has logged since it started, oldest first.
    ///
    /// nginx writes a request's line just after it sends the last byte of the response, so a
    /// client can see the response a moment before the line exists: to wait for it, use
    /// ``accessLog(waitingFor:timeout:where:)``.
    func accessLog() -> [AccessLogEntry] {
        AccessLogEntry.entries(inLogAt: accessLogURL)
    }

    /// The logged requests that satisfy `predicate`, once there are at least `count` of them or
    /// `timeout` seconds have passed (then however many there are).
    func accessLog(
        waitingFor count: Int = 1, timeout: TimeInterval = 5, where predicate: (AccessLogEntry) -> Bool
    ) -> [AccessLogEntry] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let entries = accessLog().filter(predicate)
            if entries.count >= count || Date() >= deadline { return entries }
            usleep(10_000)
        }
    }
}

extension InteropServers: NginxAccessLogged {}
