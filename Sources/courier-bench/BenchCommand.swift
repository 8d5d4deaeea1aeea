import Courier
import Foundation

/// What to run, from the command line.
struct BenchCommand {
    enum Kind {
        case get(url: URL, count: Int, inFlight: Int, options: GetBenchmark.Options)
        case queued(url: URL, count: Int, inFlight: Int)
        case download(url: URL, file: String)
        case upload(url: URL, file: String)
        case operations(count: Int, inFlight: Int, direct: Bool)
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: courier-bench get URL N C [--sync] [--accurate-progress] [--blocks] [--delegate] [--s3 | --s3-headers]
               courier-bench queued URL N C
               courier-bench download URL FILE
               courier-bench upload URL FILE
               courier-bench operations N C [--direct]   (no network: OperationQueue's own cost)
               courier-bench sign N [--sign-only|--presign-only]   (no network: SigV4's cost)
        environment: BENCH_H2=1 (https with HTTP/2), BENCH_INSECURE=1 (no certificate checks)
        """

    let kind: Kind

    init(arguments: [String]) throws {
        guard let verb = arguments.first else { throw UsageError(description: "no command") }
        let rest = Array(arguments.dropFirst())
        let flags = Set(rest.filter { $0.hasPrefix("--") })
        let positional = rest.filter { !$0.hasPrefix("--") }
        if verb == "operations" {
            guard positional.count == 2, let count = Int(positional[0]), let inFlight = Int(positional[1]), count > 0,
                inFlight > 0, flags.isSubset(of: ["--direct"])
            else { throw UsageError(description: "operations needs N C [--direct]") }
            kind = .operations(count: count, inFlight: inFlight, direct: flags.contains("--direct"))
            return
        }
        guard let first = positional.first, let url = URL(string: first), url.host != nil else {
            throw UsageError(description: "a URL is needed")
        }
        switch verb {
        case "get":
            guard positional.count == 3, let count = Int(positional[1]), let inFlight = Int(positional[2]), count > 0,
                inFlight > 0
            else { throw UsageError(description: "get needs URL N C") }
            let known: Set = ["--sync", "--accurate-progress", "--blocks", "--delegate", "--s3", "--s3-headers"]
            if let unknown = flags.subtracting(known).first { throw UsageError(description: "unknown flag \(unknown)") }
            let options = GetBenchmark.Options(
                synchronous: flags.contains("--sync"), accurateProgress: flags.contains("--accurate-progress"),
                usesDelegate: flags.contains("--delegate"), signsForS3: flags.contains("--s3"),
                sendsS3Headers: flags.contains("--s3-headers"))
            kind = .get(url: url, count: count, inFlight: inFlight, options: options)
        case "queued":
            guard positional.count == 3, let count = Int(positional[1]), let inFlight = Int(positional[2]), count > 0,
                inFlight > 0, flags.isEmpty
            else { throw UsageError(description: "queued needs URL N C") }
            kind = .queued(url: url, count: count, inFlight: inFlight)
        case "download", "upload":
            guard positional.count == 2, flags.isEmpty else { throw UsageError(description: "\(verb) needs URL FILE") }
            let file = positional[1]
            kind = verb == "download" ? .download(url: url, file: file) : .upload(url: url, file: file)
        default:
            throw UsageError(description: "unknown command \(verb)")
        }
    }

    func run() -> BenchReport {
        let insecure = ProcessInfo.processInfo.environment["BENCH_INSECURE"] == "1"
        let configure: @Sendable (HTTPRequest) -> Void = { request in
            if insecure { request.validatesSecureCertificate = false }
            // Courier's defaults stay on, allowCompressedResponse included: it sends its
            // Accept-Encoding and User-Agent lines, as the same-work C client does (issue 23).
            // nginx's gzip is off, so bodies come back as they are.
            request.timeOutSeconds = 60
        }
        switch kind {
        case .get(let url, let count, let inFlight, let options):
            let benchmark = GetBenchmark(
                url: url, count: count, inFlight: inFlight, options: options, configure: configure)
            return benchmark.run()
        case .queued(let url, let count, let inFlight):
            return QueuedBenchmark(url: url, count: count, inFlight: inFlight, configure: configure).run()
        case .download(let url, let file):
            return TransferBenchmark.download(url: url, to: file, configure: configure)
        case .upload(let url, let file):
            return TransferBenchmark.upload(url: url, from: file, configure: configure)
        case .operations(let count, let inFlight, let direct):
            return OperationFloorBenchmark(count: count, inFlight: inFlight, direct: direct).run()
        }
    }
}
