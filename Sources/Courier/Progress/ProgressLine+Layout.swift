/// Laying a progress line out for a terminal `columns` wide: never into the last column (where
/// the terminal would wrap it onto a new line and the next "\r" redraw would not cover it).
///
/// What goes when the room runs out, in order: the label is shortened (to no fewer than
/// `minimumLabel` columns, ending "…"), then the ETA goes, then the requests count, then the
/// rate, then the byte counts, then the label. The bar and the percent always stay; the bar
/// takes what is left, from `minimumBar` to `maximumBar` cells, and shrinks below
/// `minimumBar` only once everything else is gone.
///
/// Each number is given the room its widest form takes ("999.9 MB", "999.9 kB/s",
/// "ETA 59m59s"), so the bar keeps its width and the parts stay put as the digits change.
extension ProgressLine {
    static let minimumBar = 10
    static let maximumBar = 40
    static let minimumLabel = 8

    func text(fitting columns: Int) -> String {
        let budget = columns - 1
        guard budget > 0 else { return "" }
        let present = Set(Part.allCases.filter { text(of: $0) != nil || isComing($0) })
        // Drop the optional parts one by one, least important first, until the line fits.
        var kept = present
        for dropped in [nil] + Part.allCases {
            if let dropped { kept.remove(dropped) }
            if let line = layout(keeping: kept, label: label, budget: budget) { return line }
        }
        if let line = layout(keeping: [], label: "", budget: budget) { return line }
        // Narrower than a minimum bar and its percent: a smaller bar, then the percent alone.
        let bar = budget - 2 - Self.separator.count - percentText.count
        if bar >= 1 { return compose(label: "", barWidth: bar, parts: []) }
        return String(percentText.prefix(budget))
    }

    /// The line with `parts` and as much of `label` as fits, or nil when even a minimum bar does
    /// not fit beside them.
    private func layout(keeping parts: Set<Part>, label: String, budget: Int) -> String? {
        // "[" + bar + "]" and the percent, then each part after its separator.
        var reserved = 2 + Self.minimumBar + Self.separator.count + percentText.count
        for part in parts { reserved += Self.separator.count + room(for: part) }
        var shown = label
        if !label.isEmpty {
            let room = budget - reserved - Self.separator.count
            if room < label.count {
                guard room >= Self.minimumLabel else { return nil }
                shown = String(label.prefix(room - 1)) + "…"
            }
            reserved += Self.separator.count + shown.count
        }
        guard reserved <= budget else { return nil }
        let bar = min(Self.maximumBar, Self.minimumBar + budget - reserved)
        return compose(label: shown, barWidth: bar, parts: parts)
    }

    /// Whether `part` has no text yet but will have soon: the rate and the ETA need a moment of
    /// progress to measure. Their room is kept from the first draw, so the bar does not narrow
    /// (and every part after it jump) when they appear.
    private func isComing(_ part: Part) -> Bool {
        switch part {
        case .rate: bytesDone != nil
        case .eta: bytesDone != nil && (bytesTotal ?? 0) > 0
        case .bytes, .requests: false
        }
    }

    /// The columns `part` is given: its widest usual form, or its text if that is wider.
    private func room(for part: Part) -> Int {
        let actual = text(of: part)?.count ?? 0
        let widest: Int
        switch part {
        case .bytes:
            // A total still being learnt: "+" after it, or " / ?" for none yet.
            let growing = isTotalKnown ? 0 : (bytesTotal ?? 0) > 0 ? 1 : 4
            widest = bytesTotal.map { $0 > 0 ? 2 * Self.widestBytes + 3 + growing : Self.widestBytes + growing } ?? 0
        case .rate: widest = Self.widestBytes + 2
        case .eta: widest = "ETA 59m59s".count
        case .requests: widest = requests.map { "\($0.total)/\($0.total) requests".count } ?? 0
        }
        return max(actual, widest)
    }

    /// "999.9 MB".
    private static let widestBytes = 8
}
