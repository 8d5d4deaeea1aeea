import Courier
import Foundation

/// The progress bar `get`, `post` and `demo` draw on standard error, and what it takes to keep
/// other lines readable around it.
///
/// The bar itself is Courier's `ProgressBar`: redrawn in place on a terminal, a plain line at
/// every tenth of the way otherwise.
@MainActor
final class ProgressDisplay {
    /// The bar, set as a queue's or request's progress delegate.
    let bar: ProgressBar

    /// True when standard output is the terminal the bar redraws on. A result line printed there
    /// would otherwise land after the half-drawn bar, on the same line.
    private let sharesTerminalWithOutput: Bool
    /// True once the bar has drawn its last line (or was cleared): nothing is left to wipe.
    private var isDone = false

    /// A bar on standard error; given a queue, it shows the queue's byte totals and requests done.
    init(queue: NetworkQueue? = nil) {
        bar = ProgressBar(queue: queue)
        sharesTerminalWithOutput = bar.isTerminal && Self.isSameTerminal(STDOUT_FILENO, STDERR_FILENO)
    }

    /// Wipes the bar's line before another line is printed on the bar's terminal; the bar draws
    /// itself again, below, at its next update.
    func prepareForOutputLine(onStandardError: Bool = false) {
        guard !isDone, bar.isTerminal, onStandardError || sharesTerminalWithOutput else { return }
        // Carriage return, then "erase to end of line" (ECMA-48 EL), which every terminal
        // emulator in use understands.
        Console.errorFragment("\r\u{1B}[K")
    }

    /// Draws the bar a last time and ends its line: call it before printing the summary.
    func finish() {
        isDone = true
        bar.finish()
    }

    /// Erases the bar and stops it drawing, for a summary after Ctrl-C.
    func clear() {
        isDone = true
        bar.clear()
    }

    /// Whether both descriptors are terminals and the same device (`2>&1` or no redirection).
    private static func isSameTerminal(_ first: Int32, _ second: Int32) -> Bool {
        guard isatty(first) != 0, isatty(second) != 0 else { return false }
        var firstStatus = stat()
        var secondStatus = stat()
        guard fstat(first, &firstStatus) == 0, fstat(second, &secondStatus) == 0 else { return false }
        return firstStatus.st_rdev == secondStatus.st_rdev
    }
}
