import Foundation

extension HTTPRequest {
    /// One budget in bytes per second for all running requests together, uploads and downloads
    /// (0, the default: unlimited). Transfers pause and resume to stay within it.
    public class var maxBandwidthPerSecond: Int64 {
        get { Engine.shared.bandwidth.limit.load(ordering: .relaxed) }
        set { Engine.shared.setBandwidthLimit(newValue) }
    }

    /// Bytes per second all requests moved, up and down, on average over the last few whole
    /// seconds (at most five, as ASI). As ASI, a whole second without traffic starts the average
    /// afresh: it is 0 about a second after traffic stops. Any thread.
    public class var averageBandwidthUsedPerSecond: Int64 {
        Engine.shared.bandwidth.meter.averagePerSecond(now: MonotonicClock.nanoseconds())
    }
}
