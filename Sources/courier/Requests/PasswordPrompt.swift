import Foundation

/// Asks for a password on the terminal with echo off, as `curl -u USER` and `sudo` do.
enum PasswordPrompt {
    /// Writes `prompt` to the terminal and reads one line with echo off. The terminal is standard
    /// input when that is one, else the process's controlling terminal (`/dev/tty`), so
    /// `courier get -u ada URL < list` still asks. Nil when there is no terminal to ask on.
    static func ask(_ prompt: String) -> String? {
        if isatty(STDIN_FILENO) != 0 { return ask(prompt, on: STDIN_FILENO) }
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        defer { close(terminal) }
        return ask(prompt, on: terminal)
    }

    private static func ask(_ prompt: String, on descriptor: Int32) -> String? {
        // The prompt goes to standard error when the terminal is standard input: standard output
        // may be a file the user is saving.
        let promptDescriptor = descriptor == STDIN_FILENO ? STDERR_FILENO : descriptor
        _ = prompt.utf8CString.withUnsafeBufferPointer { write(promptDescriptor, $0.baseAddress, $0.count - 1) }
        var saved = termios()
        let hasSettings = tcgetattr(descriptor, &saved) == 0
        if hasSettings {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(descriptor, TCSAFLUSH, &silent)
        }
        defer { if hasSettings { tcsetattr(descriptor, TCSAFLUSH, &saved) } }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
        // End of input before a newline: what was typed, if anything.
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}
