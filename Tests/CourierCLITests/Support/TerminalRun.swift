/// What one run of the `courier` binary drew on a pseudo-terminal, and what went to a file.
struct TerminalRun {
    /// The exit status.
    let status: Int32
    /// Standard output, from its file; empty when it went to the terminal too.
    let standardOutput: String
    /// Every byte the terminal received, as written: standard error, and standard output when it
    /// shared the terminal.
    let terminal: String

    /// Standard output's lines, without the empty one after the last newline.
    var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Both streams for failure messages, carriage returns and escapes spelled out so that the
    /// redraws stay visible.
    var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- terminal\n\(Self.escaped(terminal))"
    }

    /// `text` with "\r" and ESC written as `\r` and `\e`, and a real line break after each "\n".
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\u{1B}", with: "\\e")
            .replacingOccurrences(of: "\n", with: "\\n\n")
    }
}
