import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier get --limit-rate`: one budget for the whole batch, shared fairly.
final class GetLimitRateTests: ServerTestCase {
    func testThatSmallDownloadsAreNotStarvedByALargeOneUnderLimitRate() throws {
        let directory = try makeTemporaryDirectory()
        let sizes = [64 * 1024 * 1024, 8 * 1024 * 1024, 1024 * 1024, 100 * 1024]
        let urls = sizes.map { server.url(.bytes($0)) }
        let names = urls.map(\.lastPathComponent)
        let reached = Arrivals(count: sizes.count)
        let launch = CourierBinary.Launch(
            directory: directory, timeout: 30,
            whileRunning: { pid in
                let started = Date()
                while Date().timeIntervalSince(started) < 3 {
                    let seconds = Date().timeIntervalSince(started)
                    let done = reached.withLock { reached -> Bool in
                        for (index, name) in names.enumerated() where reached[index] == nil {
                            // Complete under its name, or on the way in its .part file.
                            let size =
                                [name, name + ".part"].compactMap {
                                    try? FileManager.default.attributesOfItem(
                                        atPath: directory.appendingPathComponent($0).path)[.size] as? Int
                                }.max() ?? 0
                            if size >= 64 * 1024 { reached[index] = seconds }
                        }
                        return !reached.contains { $0 == nil }
                    }
                    if done { break }
                    usleep(10_000)
                }
                kill(pid, SIGINT)
            })
        let run = try CourierBinary.run(
            ["get", "--no-progress", "--limit-rate", "2M"] + urls.map(\.absoluteString), launch)
        XCTAssertEqual(run.status, 130, run.transcript)
        let seconds = reached.withLock { $0 }
        for (size, second) in zip(sizes, seconds) {
            XCTAssertLessThan(second ?? 99, 1, "the \(size)-byte download's first 64 KiB, in seconds: \(seconds)")
        }
    }

    /// When each download had its first 64 KiB, in seconds from courier's start; written by the
    /// thread that watches the folder, read once courier has exited.
    private final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: [TimeInterval?]

        init(count: Int) { seconds = Array(repeating: nil, count: count) }

        func withLock<Result>(_ body: (inout [TimeInterval?]) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&seconds)
        }
    }
}
