import Foundation
import Synchronization

/// One bandwidth budget shared by every running transfer, up and down: a token bucket refilled
/// on the engine thread at `HTTPRequest.maxBandwidthPerSecond`, holding at most one second's
/// worth. A transfer that finds the bucket empty is paused (`CURL_WRITEFUNC_PAUSE`,
/// `CURL_READFUNC_PAUSE`) and unpaused by the engine once tokens are back, so the budget is
/// shared out among transfers as they take turns. libcurl's own per-transfer limit
/// (`CURLOPT_MAX_RECV_SPEED_LARGE`) cannot be changed on a running transfer, so it cannot share.
///
/// It also feeds the meter every byte it sees, limited or not (`averageBandwidthUsedPerSecond`).
///
/// `@unchecked Sendable`: `limit` is an atomic and `meter` is Sendable; everything else is
/// touched only by the engine thread.
final class BandwidthBudget: @unchecked Sendable {
    /// Bytes per second; 0 is unlimited. Set from any thread.
    let limit = Atomic<Int64>(0)
    /// What all transfers move per second. Read from any thread.
    let meter = BandwidthMeter()

    // Engine-thread state.
    private var tokens: Double = 0
    private var lastRefill: UInt64 = 0
    /// A transfer was refused bytes (and paused) since the engine last unpaused them.
    var hasPausedTransfers = false

    var isLimited: Bool { limit.load(ordering: .relaxed) > 0 }

    /// Whether `bytes` may move now; takes them from the bucket if so. Engine thread.
    func take(_ bytes: Int) -> Bool {
        guard isLimited else {
            meter.record(bytes)
            return true
        }
        guard tokens > 0 else {
            hasPausedTransfers = true
            return false
        }
        tokens -= Double(bytes)
        meter.record(bytes)
        return true
    }

    /// Adds the tokens earned since the last refill (at most one second's worth) and rolls the
    /// average. Engine thread, once per loop. Returns whether there are tokens to spend.
    func refill(now: UInt64) -> Bool {
        let rate = limit.load(ordering: .relaxed)
        meter.roll(now: now)
        guard rate > 0 else {
            tokens = 0
            lastRefill = now
            return true
        }
        if lastRefill == 0 { lastRefill = now }
        let elapsed = Double(now &- lastRefill) / 1e9
        lastRefill = now
        tokens = min(Double(rate), tokens + elapsed * Double(rate))
        return tokens > 0
    }
}
