import Foundation

/// A draw: one snapshot of the counts, the line made from it, and the write, all under the
/// bar's lock (ProgressBar.swift says why).
extension ProgressBar {
    /// The counts a line is made from, read at one moment.
    private struct Snapshot {
        /// Bytes done and expected; nil with simple progress.
        var bytes: (done: Int64, total: Int64)?
        var fraction: Double
        var requests: (done: Int, total: Int)?
        /// A queue with requests still to finish: its total may grow yet.
        var outstanding: Bool
        /// The byte total is still being learnt: HEAD probes unanswered, or no size given yet.
        var isTotalGrowing: Bool
    }

    /// Draws the line for the counts now. On a terminal, `above` (a line of the program's, from
    /// `print(_:)`, after the bar was erased) goes out in the same write, just before the bar.
    func draw(_ state: inout State, at now: TimeInterval, isFinal: Bool, above: String = "") {
        let line = makeLine(&state, at: now, isFinal: isFinal)
        state.lastDraw = now
        guard isTerminal else {
            let step = line.completion.percent / 10
            // The final line is the summary: written unless the line at 100% already was.
            let writes =
                isFinal ? !(line.completion.isComplete && state.lastPlainStep == 10) : step > state.lastPlainStep
            guard writes else { return }
            state.lastPlainStep = max(state.lastPlainStep, step)
            write(line.text() + "\n")
            return
        }
        drawInPlace(line.text(fitting: columns()), &state, isFinal: isFinal, above: above)
        guard !isFinal else { return }
        if line.completion.isComplete {
            // Nothing left to stall: no redraws until more work comes.
            state.stallTimer?.cancel()
            state.stallTimer = nil
        } else if state.stallTimer == nil {
            state.stallTimer = makeStallTimer()
        }
    }

    /// The line for the counts now; samples the rate.
    private func makeLine(_ state: inout State, at now: TimeInterval, isFinal: Bool) -> ProgressLine {
        let snapshot = self.snapshot(of: state)
        let completion: Completion
        if let bytes = snapshot.bytes, bytes.total > 0 {
            completion = Completion(done: bytes.done, total: bytes.total, outstanding: snapshot.outstanding)
        } else {
            completion = Completion(fraction: snapshot.fraction, outstanding: snapshot.outstanding)
        }
        // The rate is of the bytes when there are any, else of the fraction's units; the ETA
        // only where the rate and what is left are in the same units, and the total is known.
        // The final line, and a line for work complete (a plain log's last, when finish() has
        // nothing left to add), has the average instead: the whole transfer's, known however
        // short the run was.
        state.meter.add(snapshot.bytes?.done ?? completion.done, at: now)
        let isSummary = isFinal || completion.isComplete
        let rate = isSummary ? state.meter.average : state.meter.rate(at: now)
        let isTotalKnown = isSummary || !snapshot.isTotalGrowing
        let unitsAgree = snapshot.bytes.map { $0.total > 0 } ?? true
        var line = ProgressLine(
            label: label, completion: completion, bytesDone: snapshot.bytes?.done,
            bytesTotal: snapshot.bytes?.total, rate: rate,
            eta: unitsAgree && isTotalKnown && !isSummary ? ProgressLine.eta(completion, rate: rate) : nil,
            requests: snapshot.requests)
        line.isTotalKnown = isTotalKnown
        return line
    }

    /// Over the line on screen: blanks cover what a longer last line left. No escape sequence,
    /// so a terminal that knows none still shows a clean line.
    private func drawInPlace(_ text: String, _ state: inout State, isFinal: Bool, above: String) {
        // Below a printed line the bar starts on a fresh line: nothing to cover.
        let covered = above.isEmpty ? state.lastLength : 0
        let padding = String(repeating: " ", count: max(0, covered - text.count))
        var output = above + "\r" + text + padding
        if isFinal {
            // The cursor back to the end of the text, so the line ends there, not after blanks.
            if !padding.isEmpty { output += "\r" + text }
            output += "\n"
        }
        state.lastLength = isFinal ? 0 : text.count
        write(output)
    }

    private func snapshot(of state: State) -> Snapshot {
        guard let queue else {
            // Its own counts: the total is known once a size (a Content-Length) has been given.
            return Snapshot(
                bytes: (state.bytesDone, state.bytesTotal), fraction: state.fraction, requests: nil, outstanding: false,
                isTotalGrowing: state.bytesTotal <= 0)
        }
        // The bar shows the direction it is the queue's delegate for: download unless it is
        // only the upload delegate.
        let isUploadBar = queue.uploadProgressDelegate === self && queue.downloadProgressDelegate !== self
        // Read before the total: once it says the probes have all answered, the total read after
        // it is whole. (An upload's total is known when its requests are added.)
        let isLearningTotal = !isUploadBar && queue.isLearningDownloadTotal
        // Done before total: the total read after it is never behind it (sizes come first).
        let done = isUploadBar ? queue.bytesUploadedSoFar : queue.bytesDownloadedSoFar
        let total = isUploadBar ? queue.totalBytesToUpload : queue.totalBytesToDownload
        let finished = queue.requestsFinished
        let remaining = queue.requestsCount
        return Snapshot(
            bytes: queue.showAccurateProgress ? (done, total) : nil,
            // With simple progress the counts are steps: the fraction of them done.
            fraction: total > 0 ? Double(done) / Double(total) : state.fraction,
            requests: (finished, finished + remaining), outstanding: remaining > 0,
            isTotalGrowing: isLearningTotal || (total <= 0 && remaining > 0))
    }

    /// A timer that redraws the bar when no update has for a while: without it a stalled
    /// transfer would keep showing its last rate and ETA.
    private func makeStallTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "Courier.ProgressBar"))
        let interval = stallRedrawInterval
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.redrawIfIdle() }
        timer.resume()
        return timer
    }

    private func redrawIfIdle() {
        state.withLock { state in
            guard !state.isStopped else { return }
            let now = clock()
            guard now - state.lastDraw >= stallRedrawInterval / 2 else { return }
            draw(&state, at: now, isFinal: false)
        }
    }

    func write(_ text: String) {
        // A closed or full output (2>/dev/full) must not end the program: progress is optional.
        try? output.write(contentsOf: Data(text.utf8))
    }

    /// Columns of the terminal on `descriptor`, or 80. One ioctl: cheap at ten draws a second.
    static func terminalWidth(of descriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Seconds on CLOCK_MONOTONIC: the rate must not jump when the wall clock is set.
    @Sendable static func monotonicSeconds() -> TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
