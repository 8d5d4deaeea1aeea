import Foundation
import Synchronization

/// One bandwidth budget shared by every running transfer, up and down, and shared fairly: each
/// refill on the engine thread earns `HTTPRequest.maxBandwidthPerSecond` times the time since
/// the last one, split equally into the running transfers' allowances. An allowance holds at
/// most one second of its transfer's share, so all of them together hold at most one second's
/// worth; what a transfer cannot hold (it is waiting for a server, not reading) goes to the
/// others. A transfer whose allowance is spent is paused (`CURL_WRITEFUNC_PAUSE`,
/// `CURL_READFUNC_PAUSE`) and unpaused once a refill puts it back above zero.
///
/// A transfer takes a whole chunk whenever its allowance is above zero, so it may go below zero
/// by up to one chunk (libcurl's receive buffer is 512 KiB) and then waits until its share has
/// paid that back: the budget holds on average, and a transfer that takes a big bite cannot
/// take the others' turns too, as it could when the first caller took the one shared bucket.
/// libcurl's own per-transfer limit (`CURLOPT_MAX_RECV_SPEED_LARGE`) cannot be changed on a
/// running transfer, so it cannot share.
///
/// It also feeds the meter every byte it sees, limited or not (`averageBandwidthUsedPerSecond`).
///
/// `@unchecked Sendable`: `limit` is an atomic and `meter` is Sendable; everything else, and each
/// transfer's `bandwidthAllowance`, is touched only by the engine thread.
final class BandwidthBudget: @unchecked Sendable {
    /// Bytes per second; 0 is unlimited. Set from any thread.
    let limit = Atomic<Int64>(0)
    /// What all transfers move per second. Read from any thread.
    let meter = BandwidthMeter()
    /// The shortest time between two refills: sharing out costs a pass over the running
    /// transfers, and the engine may turn its loop thousands of times a second.
    static let refillInterval: UInt64 = 1_000_000

    // Engine-thread state.
    private var lastRefill: UInt64 = 0
    /// Whether the last refill saw a limit: allowances start at zero when a budget is set.
    private var wasLimited = false
    /// A transfer was refused bytes (and paused) since the engine last unpaused them.
    var hasPausedTransfers = false

    var isLimited: Bool { limit.load(ordering: .relaxed) > 0 }

    /// Whether `bytes` may move now for `transfer`; takes them from its allowance if so. Without
    /// a limit this only counts them. Engine thread.
    func take(_ bytes: Int, for transfer: Transfer) -> Bool {
        guard isLimited else {
            meter.record(bytes)
            return true
        }
        guard transfer.bandwidthAllowance > 0 else {
            hasPausedTransfers = true
            return false
        }
        transfer.bandwidthAllowance -= Double(bytes)
        meter.record(bytes)
        return true
    }

    /// Shares out what was earned since the last refill among `transfers` and rolls the average.
    /// Engine thread, once per loop. Returns whether a paused transfer may have something to
    /// spend: always without a limit, so that lifting the budget lets every transfer go.
    func refill(now: UInt64, among transfers: [Transfer]) -> Bool {
        let rate = limit.load(ordering: .relaxed)
        meter.roll(now: now)
        guard rate > 0 else {
            wasLimited = false
            lastRefill = now
            return true
        }
        guard wasLimited else {
            // A budget was just set: what transfers held under an earlier one is not theirs now.
            wasLimited = true
            lastRefill = now
            for transfer in transfers { transfer.bandwidthAllowance = 0 }
            return false
        }
        guard now &- lastRefill >= Self.refillInterval, !transfers.isEmpty else { return false }
        let earned = Double(now &- lastRefill) / 1e9 * Double(rate)
        lastRefill = now
        return Self.share(earned, among: transfers, cap: Double(rate) / Double(transfers.count))
    }

    /// Adds `earned` to the allowances in equal parts, none above `cap`; what a full one cannot
    /// take is shared among the rest, and what no one can take is dropped (the bucket is full).
    /// Returns whether any allowance is above zero.
    static func share(_ earned: Double, among transfers: [Transfer], cap: Double) -> Bool {
        var pool = earned
        // Each round fills at least one more allowance to its cap or spends the pool; three
        // rounds pass nearly all of it on, and what is left is a crumb for the next refill.
        for _ in 0..<3 where pool >= 1 {
            let hungry = transfers.reduce(0) { $0 + ($1.bandwidthAllowance < cap ? 1 : 0) }
            guard hungry > 0 else { break }
            let part = pool / Double(hungry)
            for transfer in transfers where transfer.bandwidthAllowance < cap {
                let given = min(part, cap - transfer.bandwidthAllowance)
                transfer.bandwidthAllowance += given
                pool -= given
            }
        }
        return transfers.contains { $0.bandwidthAllowance > 0 }
    }
}
