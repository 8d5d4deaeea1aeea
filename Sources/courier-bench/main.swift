import Courier
import Foundation

// courier-bench: Courier driven the way the benchmark harness drives every client. See
// Benchmarks/README.md for the interface; the output is one `ok …` or `fail …` line.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "soak" { exit(Soak.run(Array(arguments.dropFirst()))) }
// No engine for signing: it sends nothing, and an idle engine thread would only blur callgrind's count.
if arguments.first == "sign" { exit(SignBenchmark.run(Array(arguments.dropFirst()))) }
let report: BenchReport
do {
    let command = try BenchCommand(arguments: arguments)
    // Start-up stays out of the timing, as the C client's curl_global_init does: asking the
    // engine for anything starts it (libcurl's and OpenSSL's global set-up, the engine thread).
    _ = HTTPRequest.maxBandwidthPerSecond
    report = command.run()
} catch {
    FileHandle.standardError.write(Data("\(error)\n\(BenchCommand.usage)\n".utf8))
    exit(2)
}
print(report.line)
if let firstError = report.firstError { print(firstError) }
exit(report.errors == 0 ? 0 : 1)
