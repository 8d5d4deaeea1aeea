/// What one run of the `courier` binary drew on a pseudo-terminal, and what went to a file.
public struct TerminalRun {
    /// The exit status.
    public let status: Int32
    /// Standard output, from its file; empty when it went to the terminal too.
    public let standardOutput: String
    /// Every byte the terminal received, as written: standard error, and standard output when it
    /// shared the terminal.
    public let terminal: String

    public init(status: Int32, standardOutput: String, terminal: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.terminal = terminal
    }

    /// Standard output's lines, without the empty one after the last newline.
    public var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Both streams for failure messages, carriage returns and escapes spelled out so that the
    /// redraws stay visible.
    public var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- terminal\n\(Self.escaped(terminal))"
    }

    /// `text` with "\r" and ESC written as `\r` and `\e`, and a real line break after each "\n".
    public static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\u{1B}", with: "\\e")
            .replacingOccurrences(of: "\n", with: "\\n\n")
    }
}
