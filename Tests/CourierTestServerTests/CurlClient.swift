import CourierTestSupport
import Foundation
import XCTest

/// Runs the `curl` command-line tool against the test server (127.0.0.1 only), for the
/// routes whose point is a real client's handshake: authentication and proxying.
struct CurlClient {
    /// What one curl run got: the last response's status, its body and head, and the
    /// head lines of every response it read.
    struct Result {
        var status: Int
        var body: String
        /// Every response head curl read, in order, as `Name: value` lines (status lines too).
        var headLines: [String]
        /// The number of new connections curl made.
        var connects: Int

        /// The values of `name` in the final response's head, compared case-insensitively.
        func headers(named name: String) -> [String] {
            let finalHead = headLines.split { $0.hasPrefix("HTTP/") }.last ?? []
            return finalHead.compactMap { line in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == name.lowercased() else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }

        /// The first value of `name` in the final response's head.
        func header(_ name: String) -> String? { headers(named: name).first }

        /// The statuses of every response curl read, in order.
        var statuses: [Int] {
            headLines.filter { $0.hasPrefix("HTTP/") }.compactMap { Int($0.split(separator: " ")[1]) }
        }
    }

    /// Runs curl with `arguments` (plus silence, a 10 s deadline, and no proxy unless the
    /// arguments name one) and returns what it got.
    static func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let heads = directory.appendingPathComponent("heads").path
        let body = directory.appendingPathComponent("body").path
        let noProxy = arguments.contains("-x") ? [] : ["--noproxy", "*"]
        let run = try Tool.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            ["-sS", "--max-time", "10", "-D", heads, "-o", body, "-w", "%{http_code} %{num_connects}"] + noProxy
                + arguments,
            errorsToOutput: true, timeout: 20)
        XCTAssertEqual(run.status, 0, "curl \(arguments): \(run.text)", file: file, line: line)
        let fields = run.text.split(separator: " ")
        let headText = (try? String(contentsOfFile: heads, encoding: .utf8)) ?? ""
        return Result(
            status: fields.first.flatMap { Int($0) } ?? 0,
            body: (try? String(contentsOfFile: body, encoding: .utf8)) ?? "",
            headLines: headText.components(separatedBy: "\r\n").filter { !$0.isEmpty },
            connects: fields.count > 1 ? Int(fields[1]) ?? 0 : 0)
    }
}
