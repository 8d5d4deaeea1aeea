import Foundation

/// The current rate of a count that grows (bytes, or steps done): over a sliding window of the
/// last few seconds, not since the start, so a transfer that slows or stalls shows it.
///
/// Fed a sample at each draw of a progress bar (at most ten a second), never per chunk: a
/// sample is the count at a time. The rate at a time is the growth since the newest sample at
/// least `window` seconds old (or the oldest one kept), divided by the time since it. When the
/// count stops growing, the rate falls to 0 once that sample is within the stall: after at most
/// `window` seconds (plus the time between two samples).
///
/// A value type with no clock of its own: the caller passes the times (monotonic seconds), so
/// tests drive it with explicit timestamps.
struct RateMeter {
    struct Sample: Equatable {
        var time: TimeInterval
        var count: Int64
    }

    /// How far back the rate looks, in seconds.
    let window: TimeInterval
    /// The rate is unknown until the samples span this long: a first tenth of a second says
    /// little about a transfer.
    let minimumSpan: TimeInterval
    /// Oldest first; the first one may be older than the window (the anchor the rate is measured
    /// from). At ten samples a second, about `10 × window` of them.
    private(set) var samples: [Sample] = []
    /// Where the average over the whole transfer starts: the last sample before the count first
    /// grew, so time spent before the first byte (HEAD probes, a slow first answer) counts for
    /// at most one draw's worth.
    private(set) var start: Sample?
    /// Whether the count has grown since `start`: from then on `start` stays.
    private var hasGrown = false
    /// Where the average ends: the first sample with the count the latest has, so the time a
    /// finished transfer waits for its final draw does not lower it.
    private(set) var end: Sample?

    init(window: TimeInterval = 5, minimumSpan: TimeInterval = 0.5) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Records `count` at `time`. A sample older than the last one is ignored.
    mutating func add(_ count: Int64, at time: TimeInterval) {
        if let last = samples.last, time < last.time { return }
        let sample = Sample(time: time, count: count)
        if !hasGrown {
            if let start, count > start.count { hasGrown = true } else { start = sample }
        }
        if end?.count != count { end = sample }
        samples.append(sample)
        // Keep one sample at or before the window's start, as the anchor; drop the older ones.
        let start = time - window
        if let anchor = samples.lastIndex(where: { $0.time <= start }), anchor > 0 {
            samples.removeFirst(anchor)
        }
    }

    /// Units a second over the last `window` seconds as of `time` (at or after the last sample),
    /// or nil while the samples span less than `minimumSpan`. Never negative: a count that went
    /// back (a restarted attempt) reads as 0.
    func rate(at time: TimeInterval) -> Double? {
        guard let last = samples.last else { return nil }
        let start = time - window
        let anchor = samples.last(where: { $0.time <= start }) ?? samples[0]
        return Self.rate(from: anchor, to: Sample(time: max(time, last.time), count: last.count), minimumSpan)
    }

    /// Units a second from `start` to `end`: for a finished transfer's summary. Known as soon as
    /// the count has grown, with no `minimumSpan`: a run shorter than a draw interval still has
    /// an average, and it is the whole run's, not a guess from a first tenth.
    var average: Double? {
        guard let start, let end else { return nil }
        return Self.rate(from: start, to: end, 0)
    }

    private static func rate(from start: Sample, to end: Sample, _ minimumSpan: TimeInterval) -> Double? {
        let span = end.time - start.time
        guard span >= minimumSpan, span > 0 else { return nil }
        return max(0, Double(end.count - start.count) / span)
    }
}
