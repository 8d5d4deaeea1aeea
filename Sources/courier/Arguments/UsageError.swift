/// A command line `courier` cannot run. `main` prints "courier: <message>" and a one-line pointer
/// to the command's help, and exits 2.
struct UsageError: Error, Equatable {
    /// What was wrong, in one line.
    let message: String
    /// The command whose help the pointer names ("get"), or nil for `courier --help`.
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// The line after the message: where to read how to do it right.
    var pointer: String {
        command.map { "Try 'courier \($0) --help' for more." } ?? "Try 'courier --help' for more."
    }
}
