import Courier
import Foundation

/// `courier-bench soak SECONDS CACHE-DIR URL...`: the URLs over and over, 8 at a time through one
/// NetworkQueue, for SECONDS, with a DownloadCache in CACHE-DIR and the shared cookie jar; every
/// 5 s a line `soak t=… requests=… errors=… rss_kib=… fds=…` of this process's own resident memory
/// (VmRSS) and open descriptors, for tests that hold them flat. Credentials go in the URLs
/// (`http://user:password@host/…`); the mix is whatever URLs the caller gives (authentication,
/// cookie-setting redirects, gzip, cacheable responses). Ends with `ok soak …` when every request
/// succeeded with a 2xx status, else `fail soak …` and the first error, and exits 1.
enum Soak {
    static let usage = "usage: courier-bench soak SECONDS CACHE-DIR URL..."
    /// How often a line is printed.
    static let sampleInterval: TimeInterval = 5
    static let inFlight = 8

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 3, let seconds = Double(arguments[0]), seconds > 0 else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let cache = DownloadCache(storagePath: arguments[1])
        let urls = arguments.dropFirst(2).compactMap(URL.init(string:))
        guard urls.count == arguments.count - 2 else {
            FileHandle.standardError.write(Data("not a URL among \(arguments.dropFirst(2))\n".utf8))
            return 2
        }
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = inFlight
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "courier-bench.soak")
        queue.go()
        let tally = SoakTally()
        let started = Date()
        var nextSample = started
        var next = 0
        while Date().timeIntervalSince(started) < seconds {
            // A batch at a time: the queue never holds more than a few rounds of request objects.
            for _ in 0..<(4 * inFlight) {
                let request = HTTPRequest(url: urls[next % urls.count])
                next += 1
                request.downloadCache = cache
                request.timeOutSeconds = 30
                request.setCompletionBlock { tally.finished($0) }
                request.setFailedBlock { tally.failed($0) }
                queue.addOperation(request)
            }
            queue.waitUntilAllOperationsAreFinished()
            if Date() >= nextSample {
                say(tally.line(seconds: Date().timeIntervalSince(started)))
                nextSample = nextSample.addingTimeInterval(sampleInterval)
            }
        }
        say(tally.line(seconds: Date().timeIntervalSince(started)))
        let (requests, errors, firstError) = tally.totals
        say("\(errors == 0 ? "ok" : "fail") soak requests=\(requests) errors=\(errors)")
        if let firstError { say(firstError) }
        return errors == 0 ? 0 : 1
    }

    /// A line to standard output at once (not held in stdio's buffer), so a test reading the
    /// output of a child it killed still sees every sample.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// This process's resident memory in KiB (VmRSS of /proc/self/status).
    static func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Open descriptors of this process, less the one that lists them.
    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }
}

/// The soak's counts, from the callback queue; read from the main thread.
private final class SoakTally: @unchecked Sendable {
    // @unchecked Sendable: the counts are only touched under `lock`.
    private let lock = NSLock()
    private var requests = 0
    private var errors = 0
    private var firstError: String?

    func finished(_ request: HTTPRequest) {
        let status = request.responseStatusCode
        lock.withLock {
            requests += 1
            guard !(200..<300).contains(status) else { return }
            errors += 1
            if firstError == nil { firstError = "status \(status) from \(request.url)" }
        }
    }

    func failed(_ request: HTTPRequest) {
        let error = String(describing: request.error)
        lock.withLock {
            requests += 1
            errors += 1
            if firstError == nil { firstError = "\(request.url): \(error)" }
        }
    }

    var totals: (Int, Int, String?) { lock.withLock { (requests, errors, firstError) } }

    func line(seconds: TimeInterval) -> String {
        let (requests, errors, _) = totals
        return String(
            format: "soak t=%.0f requests=%d errors=%d rss_kib=%d fds=%d", seconds, requests, errors,
            Soak.residentKiB(), Soak.openDescriptors())
    }
}
