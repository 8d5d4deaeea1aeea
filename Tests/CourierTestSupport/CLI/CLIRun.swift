import Foundation

/// What one run of the `courier` binary produced.
public struct CLIRun {
    /// The exit status.
    public let status: Int32
    /// Standard output's bytes, as written (a body from `-O -` need not be text).
    public let standardOutputData: Data
    public let standardError: String
    /// The child's peak resident memory in bytes, as sampled while it ran (nil: not read).
    public var peakResidentBytes: Int?

    /// Standard output as text (invalid UTF-8 replaced).
    public var standardOutput: String { String(decoding: standardOutputData, as: UTF8.self) }

    public init(status: Int32, standardOutputData: Data, standardError: String, peakResidentBytes: Int? = nil) {
        self.status = status
        self.standardOutputData = standardOutputData
        self.standardError = standardError
        self.peakResidentBytes = peakResidentBytes
    }

    /// Standard output's lines, without the empty one after the last newline.
    public var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Both streams, for failure messages.
    public var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}
