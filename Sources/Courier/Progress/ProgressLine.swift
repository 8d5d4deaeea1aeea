import Foundation

/// One line of a progress bar: "[=======>        ]  45%  4.5 MB / 10.0 MB  3.1 MB/s  ETA 2s  3/8 requests".
struct ProgressLine {
    var label: String
    var fraction: Double
    var bytesDone: Int64?
    var bytesTotal: Int64?
    var elapsed: TimeInterval
    var requests: (done: Int, total: Int)?

    func text(barWidth: Int) -> String {
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        var bar = String(repeating: "=", count: filled)
        if filled < barWidth { bar += ">" + String(repeating: " ", count: barWidth - filled - 1) }
        var parts = [
            label.isEmpty ? nil : label, "[\(bar)]", String(format: "%3d%%", Int((fraction * 100).rounded(.down))),
        ]
        .compactMap { $0 }
        if let bytesDone {
            let total = bytesTotal.map { " / " + Self.bytes($0) } ?? ""
            parts.append(Self.bytes(bytesDone) + total)
            if elapsed > 0.2, bytesDone > 0 {
                let rate = Double(bytesDone) / elapsed
                parts.append(Self.bytes(Int64(rate)) + "/s")
                if let bytesTotal, bytesTotal > bytesDone, fraction < 1 {
                    parts.append("ETA " + Self.duration(Double(bytesTotal - bytesDone) / rate))
                }
            }
        } else if fraction > 0, fraction < 1, elapsed > 0.2 {
            parts.append("ETA " + Self.duration(elapsed / fraction - elapsed))
        }
        if let requests { parts.append("\(requests.done)/\(requests.total) requests") }
        return parts.joined(separator: "  ")
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

    /// "45s", "3m05s", "1h02m".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, (total % 3600) / 60)
    }
}
