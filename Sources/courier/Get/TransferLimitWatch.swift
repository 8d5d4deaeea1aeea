import Courier
import Foundation

/// `--max-time` and `--speed-limit`/`--speed-time` for one try: a clock on the main queue that
/// looks at the request four times a second and says why once a limit is passed. Courier's own
/// `timeOutSeconds` only sees a try that makes no progress at all; a server dribbling a byte
/// every few seconds never trips it, so these limits are kept here, on the public
/// `totalBytesRead`, and end the try with `cancel()`.
@MainActor
final class TransferLimitWatch {
    /// How often the request is looked at: fine enough that a limit acts within a quarter second.
    static let interval: TimeInterval = 0.25

    private let maxTime: TimeInterval?
    private let lowSpeed: (bytesPerSecond: Int64, seconds: Double)?
    private let startedAt = Date()
    private var samples: [(at: Date, bytes: Int64)] = []
    private var timer: DispatchSourceTimer?

    init(maxTime: TimeInterval?, lowSpeed: (bytesPerSecond: Int64, seconds: Double)?) {
        self.maxTime = maxTime
        self.lowSpeed = lowSpeed
        samples = [(startedAt, 0)]
    }

    /// Starts watching `request`; `onLimit` runs once, on the main queue, with the reason.
    func start(_ request: HTTPRequest, onLimit: @escaping @MainActor (String) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [weak self, weak request] in
            MainActor.assumeIsolated {
                guard let self, let request else { return }
                if let reason = self.check(bytes: request.totalBytesRead, now: Date()) {
                    self.stop()
                    onLimit(reason)
                }
            }
        }
        self.timer = timer
        timer.resume()
    }

    /// The try ended: no more checks.
    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Why the try must end now, or nil.
    private func check(bytes: Int64, now: Date) -> String? {
        let elapsed = now.timeIntervalSince(startedAt)
        if let maxTime, elapsed >= maxTime {
            return "Took more than \(Self.formatted(maxTime)) s in all (--max-time)"
        }
        guard let lowSpeed else { return nil }
        samples.append((now, bytes))
        // The window starts at the newest sample at least `seconds` old. The first sample is the
        // try's start with no bytes: waiting for a connection or a first byte counts, as in curl.
        while samples.count > 1, now.timeIntervalSince(samples[1].at) >= lowSpeed.seconds { samples.removeFirst() }
        let span = now.timeIntervalSince(samples[0].at)
        guard span >= lowSpeed.seconds else { return nil }
        let rate = Double(bytes - samples[0].bytes) / span
        guard rate < Double(lowSpeed.bytesPerSecond) else { return nil }
        return "Slower than \(lowSpeed.bytesPerSecond) bytes/s for \(Self.formatted(lowSpeed.seconds)) s "
            + "(--speed-limit): \(String(format: "%.1f", rate)) bytes/s"
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
