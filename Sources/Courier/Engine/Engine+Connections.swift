import CCurl
import Foundation

/// The connection cache's size, the shared bandwidth budget, and engine faults.
extension Engine {
    /// Idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`): four for each transfer at the
    /// busiest moment so far, and at least this many, but never more than
    /// `HTTPRequest.maxIdleConnections`. libcurl's own rule is four for each easy handle in the
    /// multi handle when a connection goes idle; the engine removes every handle as its transfer
    /// ends, so that count fell whenever a queue was between requests and libcurl closed
    /// connections it needed next (50,000 GETs at 16 in flight opened 226 connections).
    static let minimumConnectionCache = 16

    /// The cache size for the busiest moment so far and the cap.
    static func connectionCacheSize(peakRunning: Int, cap: Int) -> Int {
        min(max(1, cap), max(minimumConnectionCache, 4 * peakRunning))
    }

    /// Sets `CURLMOPT_MAXCONNECTS` for the busiest moment so far and the current cap. Engine thread
    /// (or `init`). libcurl applies a lower value as connections are given back: each one given
    /// back to a cache over the limit closes the oldest idle connection.
    func sizeConnectionCache() {
        let size = Self.connectionCacheSize(peakRunning: peakRunning, cap: HTTPRequest.maxIdleConnections)
        guard size != connectionCacheSize else { return }
        let code = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, size)
        guard code == CURLM_OK else {
            Self.logFault("curl_multi_setopt(CURLMOPT_MAXCONNECTS, \(size)) failed: \(CurlMultiError(code: code))")
            return
        }
        connectionCacheSize = size
    }

    /// Applies a new `HTTPRequest.maxIdleConnections` on the engine thread. Any thread.
    func connectionCapChanged() {
        send(.resizeConnectionCache)
    }

    /// Sets the shared budget (0: unlimited) and wakes the engine to apply it. Any thread.
    func setBandwidthLimit(_ bytesPerSecond: Int64) {
        bandwidth.limit.store(max(0, bytesPerSecond), ordering: .relaxed)
        wake()
    }

    /// Refills the budget and lets transfers it paused run again once their share is back.
    func shareBandwidth() {
        // Also once the budget is lifted (0): a transfer paused while it was on must run again.
        guard bandwidth.refill(now: MonotonicClock.nanoseconds(), among: running), bandwidth.hasPausedTransfers
        else { return }
        bandwidth.hasPausedTransfers = false
        let isLimited = bandwidth.isLimited
        for transfer in running where transfer.pauses.contains(.bandwidth) {
            guard !isLimited || transfer.bandwidthAllowance > 0 else {
                // Still in debt after a big bite: it waits for a later refill.
                bandwidth.hasPausedTransfers = true
                continue
            }
            unpause(transfer, from: .bandwidth)
        }
    }

    /// A libcurl failure that concerns no single request, to the debug log. Any thread.
    static func logFault(_ text: String) {
        Log.message("engine fault: " + text)
    }
}
