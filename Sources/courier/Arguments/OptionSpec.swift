/// One flag a command takes: its names, whether it takes a value, and its line in the help.
///
/// The parser and the help text both read these, so the help can never list a flag the parser
/// does not know, or miss one it does.
struct OptionSpec: Sendable, Equatable {
    /// The one-letter name after a single dash (`-o`), if any.
    let short: Character?
    /// The name after two dashes (`--output`); it identifies the flag to the command.
    let long: String
    /// What the value is called in the help ("DIR"), or nil for a switch that takes none.
    let valueName: String?
    /// The help's description, one or more lines of at most ~60 columns.
    let summary: String

    init(_ short: Character? = nil, _ long: String, value valueName: String? = nil, _ summary: String) {
        self.short = short
        self.long = long
        self.valueName = valueName
        self.summary = summary
    }

    var takesValue: Bool { valueName != nil }

    /// "-o, --output DIR" or "    --retry N", as the help's left column shows it.
    var label: String {
        let names = (short.map { "-\($0), " } ?? "    ") + "--" + long
        return valueName.map { names + " " + $0 } ?? names
    }

    /// `-h, --help`: every command takes it.
    static let help = OptionSpec("h", "help", "show this help and exit")
}
