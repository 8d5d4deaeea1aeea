import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The terminal dialog (`shouldPresentAuthenticationDialog`, `shouldPresentProxyAuthenticationDialog`):
/// says who asks, then asks for the user name (and the NTLM domain), then the password with echo
/// off, on the process's terminal.
///
/// Threading: asking blocks until the user answers, so it never runs on the engine thread or a
/// callback queue: `present(_:on:completion:)` (either form) asks on a thread of its own and calls back on the
/// queue given. Only one dialog is on the terminal at a time; a second waits for the first.
/// With no terminal (no controlling terminal, not a tty, or the process in the background) the
/// answer is nil at once: nothing ever waits for a terminal that is not there.
struct TerminalAuthenticationDialog: Sendable {
    /// The terminal read from and written to; this type never closes them.
    let input: Int32
    let output: Int32

    /// The controlling terminal of the process.
    static let terminalPath = "/dev/tty"

    /// A terminal the request flow's dialog opens instead of `terminalPath`: for tests, which
    /// drive it under a pseudo-terminal. Nil (the default) uses the controlling terminal.
    static let terminalPathOverride = Locked<String?>(nil)

    /// One dialog at a time on the terminal. A leaf lock: nothing else is taken inside it, but
    /// it is held while the user types.
    private static let oneAtATime = Locked(())

    /// Longest answer read; a longer line is cut there (a password is not a file).
    private static let maximumAnswerLength = 4096

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Opens `terminalPath` and asks there on a new thread, then delivers the answer (nil:
    /// cancelled or no terminal) on `queue`. Returns at once.
    static func present(
        _ prompt: AuthenticationPrompt, terminalPath: String = terminalPath, on queue: DispatchQueue,
        completion: @escaping @Sendable (StoredCredential?) -> Void
    ) {
        onOwnThread({ ask(prompt, terminalPath: terminalPath) }, answeringOn: queue, completion)
    }

    /// Asks on `input` and `output` on a new thread, then delivers the answer on `queue`.
    /// Returns at once.
    func present(
        _ prompt: AuthenticationPrompt, on queue: DispatchQueue,
        completion: @escaping @Sendable (StoredCredential?) -> Void
    ) {
        let dialog = self
        Self.onOwnThread({ dialog.ask(prompt) }, answeringOn: queue, completion)
    }

    private static func onOwnThread(
        _ ask: @escaping @Sendable () -> StoredCredential?, answeringOn queue: DispatchQueue,
        _ completion: @escaping @Sendable (StoredCredential?) -> Void
    ) {
        // A thread, not a Dispatch worker: the user may take minutes, and a blocked worker is one
        // the whole process's pool lacks meanwhile.
        Thread.startNamed("courier-auth") {
            let answer = ask()
            queue.async { completion(answer) }
        }
    }

    /// Opens `terminalPath` and asks there; blocks until answered. Nil at once when there is no
    /// terminal or this process is not in its foreground (reading would stop it with SIGTTIN).
    static func ask(_ prompt: AuthenticationPrompt, terminalPath: String = terminalPath) -> StoredCredential? {
        // O_NOCTTY: a terminal opened here must not become the process's controlling terminal.
        let descriptor = open(terminalPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let foreground = tcgetpgrp(descriptor)
        guard foreground < 0 || foreground == getpgrp() else { return nil }
        return TerminalAuthenticationDialog(input: descriptor, output: descriptor).ask(prompt)
    }

    /// Asks on `input` and `output`; blocks until answered. Nil when either is not a terminal, on
    /// an empty user name, at end of input (Ctrl-D) or when the terminal fails.
    func ask(_ prompt: AuthenticationPrompt) -> StoredCredential? {
        guard isatty(input) == 1, isatty(output) == 1 else { return nil }
        return Self.oneAtATime.withLock { _ in converse(prompt) }
    }

    private func converse(_ prompt: AuthenticationPrompt) -> StoredCredential? {
        guard write("\n" + prompt.introduction), write("User name: "),
            let user = readLine(), !user.isEmpty
        else { return nil }
        var domain: String?
        if prompt.asksForDomain {
            guard write("Domain: "), let answer = readLine() else { return nil }
            domain = answer.isEmpty ? nil : answer
        }
        guard let password = readPasswordWithoutEcho(prompt: "Password: ") else { return nil }
        return StoredCredential(user: user, password: password, domain: domain)
    }

    /// Shows `prompt` and reads a line with the terminal's echo off, and turns echo back on on
    /// every way out. Echo goes off before the prompt is shown: what the user types after seeing
    /// it is then never echoed, nor dropped by the flush below.
    private func readPasswordWithoutEcho(prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        // TCSAFLUSH: anything typed ahead of the prompt was typed while echo was on; it is dropped
        // rather than taken for the password.
        guard tcsetattr(input, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer {
            var restore = saved
            // EINTR: a signal must not leave the user's terminal without echo.
            while tcsetattr(input, TCSANOW, &restore) != 0, errno == EINTR {}
            // The user's Enter was not echoed either.
            _ = write("\n")
        }
        guard write(prompt) else { return nil }
        return readLine()
    }

    /// One line without its end; nil at end of input before any character, or on an error.
    private func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < Self.maximumAnswerLength {
            let count = Glibc.read(input, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            } else if count == 0 {
                // Ctrl-D: on an empty line that is the end; after some characters it ends the line.
                if bytes.isEmpty { return nil }
                break
            } else if errno != EINTR {
                return nil
            }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes = bytes.dropFirst(count)
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}
