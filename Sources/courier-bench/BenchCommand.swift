import Courier
import Foundation

/// What to run, from the command line.
struct BenchCommand {
    enum Kind {
        case get(url: URL, count: Int, inFlight: Int, options: GetBenchmark.Options)
        case download(url: URL, file: String)
        case upload(url: URL, file: String)
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: courier-bench get URL N C [--sync] [--accurate-progress] [--blocks] [--delegate]
               courier-bench download URL FILE
               courier-bench upload URL FILE
        environment: BENCH_H2=1 (https with HTTP/2), BENCH_INSECURE=1 (no certificate checks)
        """

    let kind: Kind

    init(arguments: [String]) throws {
        guard let verb = arguments.first else { throw UsageError(description: "no command") }
        let rest = Array(arguments.dropFirst())
        let flags = Set(rest.filter { $0.hasPrefix("--") })
        let positional = rest.filter { !$0.hasPrefix("--") }
        guard let first = positional.first, let url = URL(string: first), url.host != nil else {
            throw UsageError(description: "a URL is needed")
        }
        switch verb {
        case "get":
            guard positional.count == 3, let count = Int(positional[1]), let inFlight = Int(positional[2]), count > 0,
                inFlight > 0
            else { throw UsageError(description: "get needs URL N C") }
            let known: Set = ["--sync", "--accurate-progress", "--blocks", "--delegate"]
            if let unknown = flags.subtracting(known).first { throw UsageError(description: "unknown flag \(unknown)") }
            let options = GetBenchmark.Options(
                synchronous: flags.contains("--sync"), accurateProgress: flags.contains("--accurate-progress"),
                usesDelegate: flags.contains("--delegate"))
            kind = .get(url: url, count: count, inFlight: inFlight, options: options)
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
            // Measure the transfer, not content negotiation.
            request.allowCompressedResponse = false
            request.timeOutSeconds = 60
        }
        switch kind {
        case .get(let url, let count, let inFlight, let options):
            let benchmark = GetBenchmark(
                url: url, count: count, inFlight: inFlight, options: options, configure: configure)
            return benchmark.run()
        case .download(let url, let file):
            return TransferBenchmark.download(url: url, to: file, configure: configure)
        case .upload(let url, let file):
            return TransferBenchmark.upload(url: url, from: file, configure: configure)
        }
    }
}
