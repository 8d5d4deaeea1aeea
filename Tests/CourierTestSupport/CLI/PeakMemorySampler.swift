import Foundation

/// Follows a child process's peak resident memory (`VmHWM` in /proc/<pid>/status) while it
/// runs. The kernel keeps the high-water mark itself, so sampling every 20 ms misses only what
/// the child grew in its last 20 ms.
///
/// `@unchecked Sendable`: `peak` and `isRunning` are guarded by `lock`.
final class PeakMemorySampler: @unchecked Sendable {
    private let pid: pid_t
    private let lock = NSLock()
    private var peak: Int?
    private var isRunning = true
    private let stopped = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        self.pid = pid
    }

    func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ isRunning }) {
                if let sample = Self.highWaterMark(of: pid) { lock.withLock { peak = max(peak ?? 0, sample) } }
                usleep(20_000)
            }
            stopped.signal()
        }
    }

    /// Stops sampling and returns the peak seen, in bytes (nil if none could be read).
    @discardableResult
    func stop() -> Int? {
        lock.withLock { isRunning = false }
        stopped.wait()
        return lock.withLock { peak }
    }

    /// VmHWM, in bytes; nil once the process is gone.
    private static func highWaterMark(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kibibytes = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return kibibytes.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
