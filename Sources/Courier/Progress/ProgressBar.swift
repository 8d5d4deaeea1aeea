import Foundation

/// A ready terminal progress bar: set it as a request's or queue's `downloadProgressDelegate`
/// (or upload) and it draws percent, bytes, rate, ETA and requests done on standard error.
///
/// ```swift
/// let bar = ProgressBar(queue: queue)
/// queue.downloadProgressDelegate = bar
/// queue.go()
/// queue.waitUntilAllOperationsAreFinished()
/// bar.finish()
/// ```
///
/// On a terminal it redraws one line in place, at most ten times a second (and once a second
/// while nothing arrives, so a stall shows), laid out for the terminal's width as it is at each
/// draw: when the room runs out the label is shortened, then the ETA, the requests count, the
/// rate and the byte counts go, in that order, and the bar takes 10 to 40 cells of what is
/// left. When the output is not a terminal it writes a plain line at every tenth of the way
/// instead. The rate is the current one, over the last five seconds, and the ETA comes from it
/// ("ETA ?" once the transfer has stalled).
///
/// The percent is worked out from the very bytes the line prints, so the two always agree; it
/// reaches 100% only when the bytes done equal the total and, with a queue, no request is
/// outstanding (a queue's total grows as responses arrive). With a queue it shows the queue's
/// exact counts and its requests done; a queue with simple progress shows requests only. As a
/// queue's `uploadProgressDelegate` (and not its download one) it shows the queue's upload counts.
///
/// Until a queue's HEAD probes have all answered (accurate progress), or without a queue until
/// a size has been given, the total is still growing: the line shows it as "1.0 MB+" (or "?"
/// before any) and no ETA. The final line shows the average rate from the last draw before the
/// first byte, however short the run.
///
/// `print(_:)` writes a line of the program's above the bar. A program that stops early
/// (Ctrl-C) calls `clear()` before printing; one that ran to the end calls `finish()`.
/// Whichever comes first wins; the bar draws nothing after either.
///
/// `@unchecked Sendable`: `state` is guarded by its lock, and a draw (the queue's counts read,
/// the line written) happens inside that lock, so `clear()` on another thread can never be
/// followed by a draw; the rest is set once. Lock order: a draw reads the queue's counts (its
/// state lock) while holding the bar's lock; the queue never calls its progress delegates while
/// holding its own, so the two are never taken the other way round.
public final class ProgressBar: ProgressDelegate, @unchecked Sendable {
    struct State {
        var fraction = 0.0
        var bytesDone: Int64 = 0
        var bytesTotal: Int64 = 0
        /// Monotonic seconds of the last draw.
        var lastDraw = -Double.infinity
        /// The last tenth a plain line was written for.
        var lastPlainStep = -1
        /// The tenth a plain line was last considered at, by `plainEstimate`.
        var lastPlainEstimate = -1
        /// Columns of the line on the terminal now; 0 when none is (not yet drawn, or ended).
        var lastLength = 0
        var meter = RateMeter()
        /// Redraws a stalled bar on a terminal, so its rate falls and its ETA turns to "?".
        var stallTimer: DispatchSourceTimer?
        /// After `finish()` or `clear()`: nothing more is drawn.
        var isStopped = false
    }

    let state = Locked(State())
    weak var queue: NetworkQueue?
    /// Whether the bar was given a queue: known without a weak load on every callback.
    let hasQueue: Bool
    let output: FileHandle
    let label: String
    /// Whether `output` is a terminal: the bar redraws in place only there.
    public let isTerminal: Bool
    /// The terminal's columns now (`TIOCGWINSZ`): asked at each draw, so a resized window
    /// gets a line that fits.
    let columns: @Sendable () -> Int
    /// Monotonic seconds.
    let clock: @Sendable () -> TimeInterval
    /// How often a terminal bar that hears nothing redraws itself.
    let stallRedrawInterval: TimeInterval

    /// A bar drawing on `output` (standard error). Given a queue, it reads the queue's byte and
    /// request counts; otherwise it sums what its requests report.
    public convenience init(queue: NetworkQueue? = nil, output: FileHandle = .standardError, label: String = "") {
        let descriptor = output.fileDescriptor
        self.init(
            queue: queue, output: output, label: label, isTerminal: isatty(descriptor) != 0,
            columns: { ProgressBar.terminalWidth(of: descriptor) }, clock: ProgressBar.monotonicSeconds)
    }

    /// A bar with its terminal, width and clock given: for tests.
    init(
        queue: NetworkQueue?, output: FileHandle, label: String, isTerminal: Bool,
        columns: @escaping @Sendable () -> Int, clock: @escaping @Sendable () -> TimeInterval,
        stallRedrawInterval: TimeInterval = 1
    ) {
        self.queue = queue
        hasQueue = queue != nil
        self.output = output
        self.label = label
        self.isTerminal = isTerminal
        self.columns = columns
        self.clock = clock
        self.stallRedrawInterval = stallRedrawInterval
    }

    deinit {
        state.withLock { $0.stallTimer?.cancel() }
    }

    // Each callback takes the lock and adds; then, on a terminal, reads the clock, elsewhere
    // compares a tenth. A draw (at most ten a second on a terminal, once a tenth elsewhere) does
    // the rest.

    /// Takes the fraction done, clamped to 0…1, and redraws if a draw is due; 1 draws at once.
    public func setProgress(_ progress: Double) {
        update(forcingDraw: progress >= 1) { $0.fraction = min(1, max(0, progress)) }
    }

    /// Adds `bytes` to the bytes done it counts itself (shown without a queue); redraws if due.
    public func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64) {
        update { $0.bytesDone += bytes }
    }

    /// Adds `bytes` to the bytes done it counts itself (shown without a queue); redraws if due.
    public func request(_ request: HTTPRequest, didSendBytes bytes: Int64) {
        update { $0.bytesDone += bytes }
    }

    /// Adds `bytes` to the total it counts itself (shown without a queue); redraws if due.
    public func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64) {
        update { $0.bytesTotal += bytes }
    }

    /// Adds `bytes` to the total it counts itself (shown without a queue); redraws if due.
    public func request(_ request: HTTPRequest, incrementUploadSizeBy bytes: Int64) {
        update { $0.bytesTotal += bytes }
    }

    /// Draws the last state and ends the line, unless `clear()` came first; later updates and
    /// calls are ignored. Call it once the work is done, before printing anything else. Any
    /// thread.
    public func finish() {
        state.withLock { state in
            guard !state.isStopped else { return }
            draw(&state, at: clock(), isFinal: true)
            stop(&state)
        }
    }

    /// Erases the bar's line and stops drawing, so that what the program prints next (a summary
    /// after Ctrl-C, an error) starts on a clean line. On a terminal it writes "\r" and
    /// "erase to end of line" (ECMA-48 EL, "\u{1B}[K") if the bar is on screen; elsewhere it
    /// writes nothing (plain lines are whole lines already). After `finish()` it does nothing, and
    /// after it `finish()` and every update do nothing.
    ///
    /// Call it from any thread, including a signal-handling `DispatchSource`'s handler on the
    /// main queue; not from a signal handler itself (it takes a lock and writes).
    public func clear() {
        state.withLock { state in
            guard !state.isStopped else { return }
            if isTerminal, state.lastLength > 0 { write("\r\u{1B}[K") }
            stop(&state)
        }
    }

    /// Writes `line` and a newline above the bar, then redraws the bar below it: for what a
    /// program reports while the bar runs ("saved report.pdf"), which `Swift.print` would put
    /// inside the bar's line. Any thread.
    ///
    /// On a terminal, with the bar on screen, one write erases the bar's line ("\r" and ECMA-48
    /// EL, "\u{1B}[K"), writes the line, and draws the bar again. Anywhere else, and after
    /// `finish()` or `clear()`, it writes just the line; nothing of the bar is drawn after those.
    ///
    /// The line goes to the bar's own output (standard error by default), not to standard
    /// output. When both are the same terminal, one stream and one write are what keep the line
    /// whole: nothing, not even another thread's print or draw, can come between the erase and
    /// the redraw; and no stdio buffer holds the line back until after the bar has been drawn
    /// over it again, as one written to standard output could be. When the bar's output is a
    /// file, its plain progress lines and these lines stay in the order they happened. Results a
    /// script reads from standard output belong there instead: print those after `finish()`.
    public func print(_ line: String) {
        state.withLock { state in
            guard isTerminal, !state.isStopped, state.lastLength > 0 else {
                write(line + "\n")
                return
            }
            draw(&state, at: clock(), isFinal: false, above: "\r\u{1B}[K" + line + "\n")
        }
    }

    private func stop(_ state: inout State) {
        state.isStopped = true
        state.lastLength = 0
        state.stallTimer?.cancel()
        state.stallTimer = nil
    }

    private func update(forcingDraw: Bool = false, _ change: (inout State) -> Void) {
        state.withLock { state in
            guard !state.isStopped else { return }
            change(&state)
            if isTerminal {
                let now = clock()
                guard forcingDraw || now - state.lastDraw >= Self.drawInterval else { return }
                draw(&state, at: now, isFinal: false)
            } else {
                // A plain line at each tenth: worth a draw (which reads the queue) only once the
                // cheap estimate has reached a new one.
                let estimate = Self.plainEstimate(state, hasQueue: hasQueue)
                guard estimate > state.lastPlainEstimate else { return }
                state.lastPlainEstimate = estimate
                draw(&state, at: clock(), isFinal: false)
            }
        }
    }

    /// The tenth done, from the bar's own counts: its bytes when it has no queue, else the
    /// queue's fraction. The draw then works out the percent it prints from one snapshot.
    private static func plainEstimate(_ state: State, hasQueue: Bool) -> Int {
        if !hasQueue, state.bytesTotal > 0 { return Int(min(10, max(0, state.bytesDone * 10 / state.bytesTotal))) }
        return Int(state.fraction * 10)
    }

    /// At most ten draws a second.
    static let drawInterval: TimeInterval = 0.1
}
