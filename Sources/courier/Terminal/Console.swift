import Foundation
import Synchronization

/// Writes whole lines straight to the standard streams.
///
/// Unbuffered on purpose: results are printed as requests finish, and a pipe (a test, `tee`)
/// should see each line then, not when the process exits.
enum Console {
    /// The errno of the first line that could not be written to standard output, 0 while none
    /// was lost. Any thread (the `-v` log writes from Courier's threads).
    static let lostOutput = Atomic<Int32>(0)

    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes `text` to standard error as it is, with no newline: control sequences for the bar.
    static func errorFragment(_ text: String) {
        write(text, newline: false, to: STDERR_FILENO)
    }

    /// Why lines meant for standard output were lost (`courier get ... > list.txt` on a full
    /// disk), or nil: a run whose list is incomplete must not exit 0 as if it were whole.
    static var outputFailure: BodyOutput.Failure? {
        let code = lostOutput.load(ordering: .relaxed)
        return code == 0 ? nil : BodyOutput.Failure(code: code)
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

    private static func write(_ text: String, newline: Bool = true, to descriptor: Int32) {
        do throws(BodyOutput.Failure) {
            try BodyOutput(descriptor: descriptor).write(Data((newline ? text + "\n" : text).utf8))
        } catch {
            // The downloads themselves are not failed over a lost line, but the run's status
            // says so at the end. A line lost from standard error has nowhere left to be told.
            if descriptor == STDOUT_FILENO {
                _ = lostOutput.compareExchange(expected: 0, desired: error.code, ordering: .relaxed)
            }
        }
    }
}
