import Foundation

extension InteropServers {
    /// Every request nginx has logged since it started, oldest first.
    ///
    /// nginx writes a request's line just after it sends the last byte of the response, so a
    /// client can see the response a moment before the line exists: to wait for it, use
    /// ``accessLog(waitingFor:timeout:where:)``.
    func accessLog() -> [AccessLogEntry] {
        guard let data = FileManager.default.contents(atPath: accessLogURL.path) else { return [] }
        // Only whole lines: a line being written has no newline yet.
        return data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).dropLast(
            data.last == UInt8(ascii: "\n") ? 0 : 1
        ).compactMap { AccessLogEntry(line: String(decoding: $0, as: UTF8.self)) }
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
