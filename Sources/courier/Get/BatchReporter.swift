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
    /// `--json`: a JSON line per result on standard output, and every other line on standard error.
    var writesJSON = false
    /// `--include`: each result's response heads before its line.
    var includesHeaders = false

    init(isQuiet: Bool, outputIsBody: Bool, display: ProgressDisplay?) {
        self.isQuiet = isQuiet
        self.outputIsBody = outputIsBody
        self.display = display
    }

    /// The result line of one request.
    func report(_ result: FetchResult) {
        if writesJSON { print(ResultJSON.line(for: result), toError: false) }
        if isQuiet, result.isSuccess { return }
        if includesHeaders, !outputIsBody {
            // The head's own CRLFs become the stream's line breaks; its last empty line stays, so
            // the head and the result line are told apart as in curl's output.
            for line in result.responseHead.components(separatedBy: "\r\n").dropLast() {
                print(line, toError: linesGoToError)
            }
        }
        print(ReportFormatter.line(for: result), toError: linesGoToError)
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
        for line in lines { print(line, toError: linesGoToError) }
    }

    /// Standard output belongs to the body (`-O -`) or to the JSON lines (`--json`); with `-q`
    /// only failures are printed, as errors.
    private var linesGoToError: Bool { isQuiet || outputIsBody || writesJSON }

    private func print(_ line: String, toError: Bool) {
        display?.prepareForOutputLine(onStandardError: toError)
        if toError { Console.error(line) } else { Console.out(line) }
    }
}
