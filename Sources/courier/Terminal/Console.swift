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

    /// Opens /dev/null on any of descriptors 0, 1 and 2 that the caller left closed
    /// (`courier get … 2>&-`). Otherwise the next file or socket opened would take that number,
    /// and the progress bar or an error line would be written into a download or a connection.
    static func reserveStandardStreams() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
            // open(2) takes the lowest free number, and the ones below are open by now: this one.
            let opened = open("/dev/null", O_RDWR)
            if opened >= 0, opened != descriptor { close(opened) }
        }
    }

    private static func write(_ text: String, to handle: FileHandle) {
        // A closed stream (`courier get … | head -1`) is not worth failing a download over.
        try? handle.write(contentsOf: Data((text + "\n").utf8))
    }
}
