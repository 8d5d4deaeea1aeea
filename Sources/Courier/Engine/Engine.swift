import CCurl
import Foundation

/// The one libcurl multi handle of the process and the thread that drives it.
///
/// Every request, whatever queue runs it, becomes a `Transfer` here, so connections, DNS
/// results and TLS sessions are shared by all of them. Other threads talk to the engine only
/// through its inbox (`add`, `cancel`) followed by `curl_multi_wakeup`, which libcurl documents
/// as callable from any thread. Only the engine thread touches easy handles and the multi handle
/// otherwise, and it never runs user code.
///
/// `@unchecked Sendable`: `inbox` is guarded by its lock; `running`, `idleHandles` and
/// `nextTimeoutScan` are touched only by the engine thread; `multi` and `share` are set once.
final class Engine: @unchecked Sendable {
    static let shared = Engine()

    private let multi: UnsafeMutableRawPointer
    /// Shares cookies and TLS sessions between transfers.
    private let share: UnsafeMutableRawPointer
    /// Shares TLS sessions only: a share handle that shares cookies turns the cookie engine on
    /// for every transfer using it, so requests with `useCookiePersistence` off use this one.
    private let shareWithoutCookies: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())

    // Engine-thread state: only the engine thread touches it, so Swift's dynamic exclusivity
    // checks (several per request) are turned off for it.
    /// The transfers in the multi handle, each at its `runningIndex`; the list is what keeps
    /// each transfer (libcurl's callback context) alive until after its removal. A finished
    /// transfer is found again through `CURLOPT_PRIVATE`, so no lookup table is needed.
    @exclusivity(unchecked) private var running: [Transfer] = []
    @exclusivity(unchecked) private var idleHandles: [EasyHandle] = []
    /// The inbox's other half, swapped in by `drainInbox`.
    @exclusivity(unchecked) private var spareInbox: [Command] = []
    @exclusivity(unchecked) private var nextTimeoutScan: UInt64 = 0
    /// The most transfers that have run at once, which sizes the connection cache.
    @exclusivity(unchecked) private var peakRunning = 0
    /// The shared bandwidth budget; its `take` is called from the transfer callbacks.
    let bandwidth = BandwidthBudget()

    /// Commands from other threads, and whether the engine sleeps in `curl_multi_poll`.
    private struct Inbox {
        var commands: [Command] = []
        /// The engine is in (or about to enter) curl_multi_poll: a new command must wake it.
        var isPolling = false
        /// A wakeup was sent since it began polling: the next command needs none.
        var wakeupSent = false
    }

    private enum Command {
        case add(Transfer)
        case cancel(Transfer, HTTPRequestError)
        case resume(Transfer, PauseReasons)
    }

    /// Idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`): four for each transfer at the
    /// busiest moment so far, and at least this many. libcurl's own rule is four for each easy
    /// handle in the multi handle when a connection goes idle; the engine removes every handle
    /// as its transfer ends, so that count fell whenever a queue was between requests and libcurl
    /// closed connections it needed next (50,000 GETs at 16 in flight opened 226 connections).
    private static let minimumConnectionCache = 16
    /// Easy handles kept for reuse; each holds a receive buffer, so the pool is bounded.
    private static let maxIdleHandles = 32
    /// How often inactivity timeouts are checked: fractions of a second work to this precision.
    private static let timeoutScanInterval: UInt64 = 20_000_000

    private init() {
        // libcurl's threaded resolver and NOSIGNAL mean nothing here uses signals, but OpenSSL can
        // still raise SIGPIPE writing to a closed TLS socket: a client library must not die of it.
        signal(SIGPIPE, SIG_IGN)
        curl_global_init(Int(CURL_GLOBAL_ALL))
        multi = curl_multi_init()
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.minimumConnectionCache)
        share = curl_share_init()
        shareWithoutCookies = curl_share_init()
        // Cookies and TLS sessions are shared by every transfer. All of them run on the engine
        // thread, so the share handles need no lock callbacks.
        _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        _ = ccurl_share_setopt_long(shareWithoutCookies, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        let thread = Thread { [self] in run() }
        thread.name = "courier-engine"
        thread.start()
    }

    /// The libcurl version string, "libcurl/7.88.1 OpenSSL/3.0.x …".
    static var curlVersion: String { String(cString: curl_version()) }

    /// Starts a transfer. Any thread.
    func add(_ transfer: Transfer) {
        send(.add(transfer))
    }

    /// Ends a transfer at once with `error` (its sink hears `didComplete`). Any thread; a
    /// transfer that already ended is left alone.
    func cancel(_ transfer: Transfer, with error: HTTPRequestError) {
        send(.cancel(transfer, error))
    }

    /// Lifts one reason a transfer is paused; it runs again once no reason is left. Any thread.
    func resume(_ transfer: Transfer, from reason: PauseReasons) {
        send(.resume(transfer, reason))
    }

    private func send(_ command: Command) {
        // A wakeup (a write(2) to libcurl's wakeup socket, then a read on the engine's side) only
        // when the engine sleeps in poll and no wakeup is on its way: a busy engine drains the
        // inbox before it polls again anyway.
        let wakes = inbox.withLock { inbox -> Bool in
            inbox.commands.append(command)
            guard inbox.isPolling, !inbox.wakeupSent else { return false }
            inbox.wakeupSent = true
            return true
        }
        if wakes { curl_multi_wakeup(multi) }
    }

    // MARK: - The engine thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            drainInbox()
            curl_multi_perform(multi, &stillRunning)
            readCompletions()
            scanForInactivity()
            shareBandwidth()
            // curl_multi_poll caps its own wait at libcurl's internal timeout; the cap here is for
            // the inactivity scan, and a wakeup ends the wait at once.
            let wait: Int32 = running.isEmpty ? 60_000 : Int32(Self.timeoutScanInterval / 1_000_000)
            // Poll only with an empty inbox; from then until the poll ends, a command wakes it.
            let commandsWait = inbox.withLock { inbox -> Bool in
                guard inbox.commands.isEmpty else { return true }
                inbox.isPolling = true
                return false
            }
            guard !commandsWait else { continue }
            curl_multi_poll(multi, nil, 0, wait, nil)
            inbox.withLock { inbox in
                inbox.isPolling = false
                inbox.wakeupSent = false
            }
        }
    }

    private func drainInbox() {
        // Swap the inbox with the engine's own empty array: both keep their capacity, so
        // neither side allocates in the steady state (copying out and clearing would).
        var commands: [Command] = []
        swap(&commands, &spareInbox)
        inbox.withLock { swap(&$0.commands, &commands) }
        defer {
            commands.removeAll(keepingCapacity: true)
            spareInbox = commands
        }
        for command in commands {
            switch command {
            case .add(let transfer): start(transfer)
            case .cancel(let transfer, let error): stop(transfer, with: error)
            case .resume(let transfer, let reason): unpause(transfer, from: reason)
            }
        }
    }

    private func start(_ transfer: Transfer) {
        guard !transfer.isAbandoned else {
            transfer.complete(Self.failedOutcome(.cancelled(transfer.url)))
            return
        }
        let shareHandle = transfer.configuration.usesCookieEngine ? share : shareWithoutCookies
        var reused = idleHandles.popLast()
        guard var handle = reused ?? EasyHandle() else {
            transfer.complete(
                Self.failedOutcome(
                    HTTPRequestError(
                        type: .unhandledException, message: "libcurl could not make an easy handle", url: transfer.url))
            )
            return
        }
        do {
            do {
                try transfer.apply(to: handle, share: shareHandle)
            } catch  where reused != nil {
                // A handle removed before it got a connection keeps its receive buffer through
                // curl_easy_reset, and then refuses CURLOPT_BUFFERSIZE (libcurl 7.88): drop it and
                // configure a fresh one.
                reused = nil
                guard let fresh = EasyHandle() else { throw error }
                handle = fresh
                try transfer.apply(to: handle, share: shareHandle)
            }
        } catch {
            let message = (error as? CurlError)?.description ?? "\(error)"
            transfer.complete(
                Self.failedOutcome(
                    HTTPRequestError(
                        type: .internalErrorWhileBuildingRequest, message: message, url: transfer.url)))
            return
        }
        transfer.handle = handle
        transfer.noteActivity()
        let code = curl_multi_add_handle(multi, handle.raw)
        guard code == CURLM_OK else {
            transfer.handle = nil
            handle.transfer = nil
            recycle(handle)
            transfer.complete(
                Self.failedOutcome(
                    HTTPRequestError(
                        type: .unhandledException, message: CurlMultiError(code: code).description, url: transfer.url)))
            return
        }
        transfer.runningIndex = running.count
        running.append(transfer)
        if running.count > peakRunning { growConnectionCache() }
    }

    /// Keeps four idle connections for each transfer of the new busiest moment.
    private func growConnectionCache() {
        peakRunning = running.count
        let size = max(Self.minimumConnectionCache, 4 * peakRunning)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, size)
    }

    /// Takes a transfer out of `running` (the last one moves into its place).
    private func removeFromRunning(_ transfer: Transfer) {
        let index = transfer.runningIndex
        let last = running.removeLast()
        if last !== transfer {
            running[index] = last
            last.runningIndex = index
        }
        transfer.runningIndex = -1
    }

    private func stop(_ transfer: Transfer, with error: HTTPRequestError) {
        guard transfer.isRunning, let handle = transfer.handle else { return }
        transfer.engineFailure = error
        finish(transfer, handle: handle, code: CURLE_ABORTED_BY_CALLBACK)
    }

    private func unpause(_ transfer: Transfer, from reason: PauseReasons) {
        guard transfer.pauses.contains(reason), transfer.isRunning, let handle = transfer.handle else {
            return
        }
        transfer.pauses.remove(reason)
        guard transfer.pauses.isEmpty else { return }
        transfer.noteActivity()
        // Outside any callback: libcurl may deliver the held chunk from inside this call.
        curl_easy_pause(handle.raw, CURLPAUSE_CONT)
    }

    private func readCompletions() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            var context: UnsafeMutableRawPointer?
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle,
                ccurl_easy_getinfo_ptr(raw, CURLINFO_PRIVATE, &context) == CURLE_OK, let context,
                let transfer = EasyHandle.transfer(from: context), transfer.isRunning,
                let handle = transfer.handle, handle.raw == raw
            else { continue }
            finish(transfer, handle: handle, code: message.pointee.data.result)
        }
    }

    /// Removes the handle from the multi handle, then reports. Never called from a curl callback.
    private func finish(_ transfer: Transfer, handle: EasyHandle, code: CURLcode) {
        curl_multi_remove_handle(multi, handle.raw)
        removeFromRunning(transfer)
        // A transfer cut short or held paused may leave state behind: reset before reuse.
        if code != CURLE_OK || !transfer.pauses.isEmpty { handle.options = .mixed }
        let outcome = transfer.outcome(from: handle, code: code)
        transfer.handle = nil
        handle.transfer = nil
        recycle(handle)
        transfer.complete(outcome)
    }

    /// Keeps the handle for the next transfer, options and all: `Transfer.apply` resets it
    /// then if its options do not fit (`EasyHandle.options`).
    private func recycle(_ handle: EasyHandle) {
        guard idleHandles.count < Self.maxIdleHandles else { return }
        idleHandles.append(handle)
    }

    /// Sets the shared budget (0: unlimited) and wakes the engine to apply it. Any thread.
    func setBandwidthLimit(_ bytesPerSecond: Int64) {
        bandwidth.limit.store(max(0, bytesPerSecond), ordering: .relaxed)
        curl_multi_wakeup(multi)
    }

    /// Refills the budget and lets transfers it paused run again while there are tokens.
    private func shareBandwidth() {
        guard bandwidth.refill(now: MonotonicClock.nanoseconds()), bandwidth.isLimited else { return }
        for transfer in running where transfer.pauses.contains(.bandwidth) {
            unpause(transfer, from: .bandwidth)
        }
    }

    /// Ends every transfer that has made no progress for its `inactivityTimeout`.
    private func scanForInactivity() {
        guard !running.isEmpty else { return }
        let now = MonotonicClock.nanoseconds()
        guard now >= nextTimeoutScan else { return }
        nextTimeoutScan = now + Self.timeoutScanInterval
        var expired: [Transfer] = []
        for transfer in running {
            let timeout = transfer.configuration.inactivityTimeout
            guard timeout > 0, transfer.pauses.isEmpty else { continue }
            if Double(now &- transfer.lastActivity) / 1e9 >= timeout { expired.append(transfer) }
        }
        for transfer in expired {
            guard let handle = transfer.handle else { continue }
            transfer.engineFailure = HTTPRequestError(
                type: .requestTimedOut,
                message: "No progress for \(transfer.configuration.inactivityTimeout) seconds",
                url: transfer.url)
            finish(transfer, handle: handle, code: CURLE_OPERATION_TIMEDOUT)
        }
    }

    private static func failedOutcome(_ error: HTTPRequestError) -> TransferOutcome {
        TransferOutcome(
            failure: error, head: nil, body: Data(), bytesReceived: 0, bytesSent: 0, metrics: RequestMetrics(),
            redirectURL: nil)
    }
}
