import Foundation

/// Writes whole lines straight to the standard streams.
///
/// Unbuffered on purpose: results are printed as requests finish, and a pipe (a test, `tee`)
/// should see each line then, not when the process exits.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        write(text, to: .standardOutput)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        write(text, to: .standardError)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        // A closed stream (`courier get … | head -1`) is not worth failing a download over.
        try? handle.write(contentsOf: Data((text + "\n").utf8))
    }
}
