import Foundation
import XCTest

extension ChildProcess {
    /// The child's side: prints its report, one line "role: key=value … peakRSS=NMiB", for the
    /// parent to read with `Result.report(_:)`. Values must not contain spaces.
    public static func report(_ fields: KeyValuePairs<String, String>) {
        let pairs = fields.map { "\($0.key)=\($0.value)" } + ["peakRSS=\(peakResidentBytes / 1024 / 1024)MiB"]
        print("\(role ?? "child"): " + pairs.joined(separator: " "))
    }
}

extension ChildProcess.Result {
    /// A child's report line and its fields.
    public struct Report: Sendable {
        public let line: String
        public let fields: [String: String]

        /// The child's peak resident set size in MiB.
        public var peakRSSMiB: Int? { fields["peakRSS"].flatMap { Int($0.dropLast("MiB".count)) } }
    }

    /// The report the child printed for `role` (a missing one fails the test), echoed to this
    /// test's output so that the run's log keeps the figures.
    public func report(_ role: String, file: StaticString = #filePath, line: UInt = #line) throws -> Report {
        let prefix = role + ": "
        let found = try XCTUnwrap(
            output.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no report from the child:\n\(output)",
            file: file, line: line)
        print(found)
        var fields: [String: String] = [:]
        for pair in found.dropFirst(prefix.count).split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return Report(line: String(found), fields: fields)
    }
}
