import Foundation

/// Whether a host can be reached: a name lookup and a TCP connect, each within a short timeout.
/// ABRequestManager's reachability check, for Linux, where there is no system reachability
/// service: it answers "could a connection be made just now", not "is there a network".
///
/// ```swift
/// let api = Reachability(host: "127.0.0.1", port: 8080)
/// api.startMonitoring(interval: 2) { reachable in print(reachable ? "back" : "gone") }
/// ```
///
/// `@unchecked`-free `Sendable`: the monitor's state is in a `Locked`.
public final class Reachability: Sendable {
    /// The host name or address probed.
    public let host: String
    /// The TCP port probed (80 unless given).
    public let port: Int
    /// How long a probe may take before the host counts as unreachable.
    public let timeout: TimeInterval

    private struct Monitor {
        var timer: DispatchSourceTimer?
        var lastAnswer: Bool?
    }

    private let monitor = Locked(Monitor())
    private let probeQueue = DispatchQueue(label: "Courier.Reachability")

    /// A probe for `host` on `port` (nil: 80), giving up after `timeout` seconds.
    public init(host: String, port: Int? = nil, timeout: TimeInterval = 1) {
        self.host = host
        self.port = port ?? 80
        self.timeout = timeout
    }

    deinit {
        monitor.withLock { $0.timer?.cancel() }
    }

    /// Probes now: true when the name resolves and a TCP connection to the port succeeds within
    /// `timeout`. Blocks for at most about `timeout` per address; call it off the main thread.
    public var isReachable: Bool {
        ReachabilityProbe.canConnect(host: host, port: port, timeout: timeout)
    }

    /// Probes every `interval` seconds on a background queue and calls `onChange` with the first
    /// answer and then with each change. Replaces an earlier monitor.
    public func startMonitoring(interval: TimeInterval, onChange: @escaping @Sendable (Bool) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: probeQueue)
        timer.schedule(deadline: .now(), repeating: max(0.05, interval))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let answer = self.isReachable
            let changed = self.monitor.withLock { monitor -> Bool in
                defer { monitor.lastAnswer = answer }
                return monitor.lastAnswer != answer
            }
            if changed { onChange(answer) }
        }
        let previous = monitor.withLock { monitor -> DispatchSourceTimer? in
            defer {
                monitor.timer = timer
                monitor.lastAnswer = nil
            }
            return monitor.timer
        }
        previous?.cancel()
        timer.resume()
    }

    /// Stops monitoring; no `onChange` call starts after this returns.
    public func stopMonitoring() {
        let timer = monitor.withLock { monitor -> DispatchSourceTimer? in
            defer { monitor.timer = nil }
            return monitor.timer
        }
        timer?.cancel()
    }
}
