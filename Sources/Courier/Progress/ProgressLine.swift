import Foundation

/// One line of a progress bar:
/// "label  [=======>        ]   45%  4.5 MB / 10.0 MB  3.1 MB/s  ETA 2s  3/8 requests"
/// ("4.5 MB / 10.0 MB+" while the total is still growing).
///
/// `text()` is the plain line (every part, a bar 20 cells wide), for a file or a pipe;
/// `text(fitting:)` lays it out for a terminal's width (ProgressLine+Layout.swift).
struct ProgressLine {
    var label: String = ""
    /// The bar's fill and the percent.
    var completion: Completion
    /// Bytes done; nil with simple progress (no byte counts shown).
    var bytesDone: Int64?
    /// Bytes expected; nil or 0 when unknown (only the bytes done are shown).
    var bytesTotal: Int64?
    /// False while the total is still being learnt (a queue's HEAD probes have not all answered,
    /// or no Content-Length has come yet): the total is shown "1.0 MB+", or "?" when it is 0, so
    /// a partial total does not pass for the whole.
    var isTotalKnown = true
    /// Bytes a second, recently (shown only with bytes); nil while not yet known.
    var rate: Double?
    /// Seconds left; `.infinity` when the work has stalled (shown as "ETA ?"); nil for none.
    var eta: TimeInterval?
    var requests: (done: Int, total: Int)?

    /// The parts that may be left out for want of room, least important first: the order
    /// `text(fitting:)` drops them in.
    enum Part: CaseIterable {
        case eta, requests, rate, bytes
    }

    /// Every part, with a bar `barWidth` cells wide: a line for a file or a pipe.
    func text(barWidth: Int = 20) -> String {
        compose(label: label, barWidth: barWidth, parts: Set(Part.allCases))
    }

    /// The line with `label` (empty: none), a bar `barWidth` cells wide, and the optional parts
    /// in `parts` that have something to show.
    func compose(label: String, barWidth: Int, parts: Set<Part>) -> String {
        var pieces: [String] = []
        if !label.isEmpty { pieces.append(label) }
        if barWidth > 0 { pieces.append(bar(width: barWidth)) }
        pieces.append(percentText)
        for part in [Part.bytes, .rate, .eta, .requests] where parts.contains(part) {
            if let text = text(of: part) { pieces.append(text) }
        }
        return pieces.joined(separator: Self.separator)
    }

    static let separator = "  "

    /// "[=====>    ]": `filled` cells of "=", then ">" where the work is, then blanks.
    func bar(width: Int) -> String {
        let filled = completion.filled(of: width)
        var cells = String(repeating: "=", count: filled)
        if filled < width { cells += ">" + String(repeating: " ", count: width - filled - 1) }
        return "[" + cells + "]"
    }

    /// " 45%": always four columns.
    var percentText: String {
        String(format: "%3d%%", completion.percent)
    }

    /// The text of an optional part, or nil when it has nothing to show.
    func text(of part: Part) -> String? {
        switch part {
        case .bytes:
            guard let bytesDone else { return nil }
            guard let bytesTotal, bytesTotal > 0 else {
                return Self.bytes(bytesDone) + (isTotalKnown ? "" : " / ?")
            }
            return Self.bytes(bytesDone) + " / " + Self.bytes(bytesTotal) + (isTotalKnown ? "" : "+")
        case .rate:
            guard bytesDone != nil, let rate else { return nil }
            return Self.bytes(Int64(rate)) + "/s"
        case .eta:
            guard let eta else { return nil }
            return "ETA " + Self.duration(eta)
        case .requests:
            guard let requests else { return nil }
            return "\(requests.done)/\(requests.total) requests"
        }
    }

    /// "512 B", "1.5 kB", "10.0 MB", "1.2 GB" (decimal units, as file managers show them).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while abs(value) >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// "45s", "3m05s", "1h02m"; "?" for an unknown (infinite) time.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < Double(Int32.max) else { return "?" }
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, (total % 3600) / 60)
    }

    /// Seconds left at `rate` units a second: nil when nothing is known to be left or the rate is
    /// not known yet; `.infinity` (shown "?") when the work has stalled, rather than a stale time.
    static func eta(_ completion: Completion, rate: Double?) -> TimeInterval? {
        guard let remaining = completion.remaining, let rate else { return nil }
        guard rate > 0 else { return .infinity }
        return Double(remaining) / rate
    }
}
