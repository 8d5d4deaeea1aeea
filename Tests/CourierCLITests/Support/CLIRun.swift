/// What one run of the `courier` binary produced.
struct CLIRun {
    /// The exit status.
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// Standard output's lines, without the empty one after the last newline.
    var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Both streams, for failure messages.
    var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}
