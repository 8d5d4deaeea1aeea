/// Prints what a batch does: a line per result, notes (retries), and the summary, around the
/// progress bar.
///
/// Result lines and the summary go to standard output, so `courier get ... > list.txt` keeps a
/// clean list; with `-O -` standard output holds the body, so they go to standard error. With
/// `-q` only failures are printed, on standard error.
@MainActor
final class BatchReporter {
    private let isQuiet: Bool
    private let outputIsBody: Bool
    /// The bar, or nil when none is drawn.
    let display: ProgressDisplay?

    init(isQuiet: Bool, outputIsBody: Bool, display: ProgressDisplay?) {
        self.isQuiet = isQuiet
        self.outputIsBody = outputIsBody
        self.display = display
    }

    /// The result line of one request.
    func report(_ result: FetchResult) {
        if isQuiet, result.isSuccess { return }
        print(ReportFormatter.line(for: result), toError: isQuiet || outputIsBody)
    }

    /// A line about something under way, such as a retry; not with `-q`.
    func note(_ text: String) {
        guard !isQuiet else { return }
        print(text, toError: true)
    }

    /// The summary at the end: the totals, then each failure with its reason. With `-q`, only
    /// the failures.
    func summarize(_ summary: BatchSummary, interruptedWith note: String? = nil) {
        var lines = isQuiet ? [] : [ReportFormatter.totals(of: summary)]
        if isQuiet, !summary.failures.isEmpty { lines.append(ReportFormatter.totals(of: summary)) }
        lines += ReportFormatter.failureLines(of: summary)
        if let note { lines.append(note) }
        for line in lines { print(line, toError: isQuiet || outputIsBody) }
    }

    private func print(_ line: String, toError: Bool) {
        display?.prepareForOutputLine(onStandardError: toError)
        if toError { Console.error(line) } else { Console.out(line) }
    }
}
