import CCurl
import Foundation
import Synchronization

/// The one libcurl multi handle of the process and the thread that drives it.
///
/// Every request, whatever queue runs it, becomes a `Transfer` here, so connections, DNS
/// results and TLS sessions are shared by all of them. Other threads talk to the engine only
/// through its inbox (`add`, `cancel`) followed by `curl_multi_wakeup`, which libcurl documents
/// as callable from any thread. Only the engine thread touches easy handles and the multi handle
/// otherwise, and it never runs user code.
///
/// Every `CURLMcode` and `CURLcode` it gets back is checked: a failure that concerns one transfer
/// fails that request (`CurlErrorMapping`); one that concerns none is logged as an engine fault.
///
/// `@unchecked Sendable`: `inbox` is guarded by its lock; `running`, `idleHandles` and
/// `nextTimeoutScan` are touched only by the engine thread; `multi` and `share` are set once.
final class Engine: @unchecked Sendable {
    static let shared = Engine()

    let multi: UnsafeMutableRawPointer
    /// Shares cookies and TLS sessions between transfers.
    let share: UnsafeMutableRawPointer
    /// Shares TLS sessions only: a share handle that shares cookies turns the cookie engine on
    /// for every transfer using it, so requests with `useCookiePersistence` off use this one.
    private let shareWithoutCookies: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())

    // Engine-thread state: only the engine thread touches it. Swift's dynamic exclusivity checks
    // stay on: turning them off (@exclusivity(unchecked)) saved 760 instructions of a 1 KiB GET's
    // 116,000 (0.7%, Benchmarks/), under the 2% an unsafe idiom must pay for itself.
    /// The transfers in the multi handle, each at its `runningIndex`, for the scans over them
    /// (what keeps libcurl's callback context alive is the retained `CallbackContext`). A
    /// finished transfer is found again through `CURLINFO_PRIVATE`, so no lookup table is needed.
    var running: [Transfer] = []
    private var idleHandles: [EasyHandle] = []
    /// The inbox's other half, swapped in by `drainInbox`.
    private var spareInbox: [Command] = []
    private var nextTimeoutScan: UInt64 = 0
    /// The scratch handle on `share` that reads and changes the cookie jar, made when first needed.
    var cookieJar: CookieJar?
    /// The most transfers that have run at once, which sizes the connection cache.
    var peakRunning = 0
    /// What `CURLMOPT_MAXCONNECTS` was last set to (0: not yet).
    var connectionCacheSize = 0
    /// How many transfers ran on a pooled easy handle rather than a new one. Any thread.
    let handleReuses = Atomic<Int>(0)
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

    enum Command {
        case add(Transfer)
        case cancel(Transfer, HTTPRequestError)
        case resume(Transfer, PauseReasons)
        /// `HTTPRequest.maxIdleConnections` changed.
        case resizeConnectionCache
        /// Work that must happen on the engine thread, such as reading the cookie jar
        /// (`Engine+CookieJar.swift`). It never runs user code.
        case run(@Sendable () -> Void)
    }

    /// Easy handles kept for reuse; each holds a receive buffer, so the pool is bounded.
    static let maxIdleHandles = 32
    /// How often inactivity timeouts are checked: fractions of a second work to this precision.
    static let timeoutScanInterval: UInt64 = 20_000_000

    private init() {
        // libcurl's threaded resolver and NOSIGNAL mean nothing here uses signals, but OpenSSL can
        // still raise SIGPIPE writing to a closed TLS socket: a client library must not die of it.
        signal(SIGPIPE, SIG_IGN)
        let initCode = curl_global_init(Int(CURL_GLOBAL_ALL))
        if initCode != CURLE_OK { Self.logFault("curl_global_init failed: \(CurlError(initCode))") }
        // Without a multi handle or share handles nothing can ever run; libcurl fails to make them
        // only when out of memory at start-up. No curl callback can reach this.
        guard let multi = curl_multi_init(), let share = curl_share_init(),
            let shareWithoutCookies = curl_share_init()
        else { fatalError("libcurl could not make its multi and share handles (out of memory)") }
        self.multi = multi
        self.share = share
        self.shareWithoutCookies = shareWithoutCookies
        // Cookies and TLS sessions are shared by every transfer. All of them run on the engine
        // thread, so the share handles need no lock callbacks. A share that fails only shares less.
        let shares = [
            (share, CURL_LOCK_DATA_COOKIE), (share, CURL_LOCK_DATA_SSL_SESSION),
            (shareWithoutCookies, CURL_LOCK_DATA_SSL_SESSION),
        ]
        for (handle, data) in shares {
            let code = ccurl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(data.rawValue))
            if code != CURLSHE_OK {
                Self.logFault("curl_share_setopt failed: \(String(cString: curl_share_strerror(code)))")
            }
        }
        sizeConnectionCache()
        Thread.startNamed("courier-engine") { [self] in run() }
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

    func send(_ command: Command) {
        // A wakeup (a write(2) to libcurl's wakeup socket, then a read on the engine's side) only
        // when the engine sleeps in poll and no wakeup is on its way: a busy engine drains the
        // inbox before it polls again anyway.
        let wakes = inbox.withLock { inbox -> Bool in
            inbox.commands.append(command)
            guard inbox.isPolling, !inbox.wakeupSent else { return false }
            inbox.wakeupSent = true
            return true
        }
        if wakes { wake() }
    }

    /// `curl_multi_wakeup`. Any thread. If it fails, the command still waits in the inbox: the
    /// engine takes it when its poll times out (at most a minute idle, 20 ms with transfers).
    func wake() {
        let code = curl_multi_wakeup(multi)
        guard code != CURLM_OK else { return }
        inbox.withLock { $0.wakeupSent = false }
        Self.logFault("curl_multi_wakeup failed: \(CurlMultiError(code: code))")
    }

    // MARK: - The engine thread

    private func run() {
        Thread.current.threadDictionary[Self.threadMarker] = true
        var stillRunning: Int32 = 0
        while true {
            drainInbox()
            // A failure here concerns no one transfer (each one's own failure comes as its
            // CURLMSG_DONE result); a transfer it stalls ends at its inactivity timeout.
            let performed = curl_multi_perform(multi, &stillRunning)
            if performed != CURLM_OK { Self.logFault("curl_multi_perform failed: \(CurlMultiError(code: performed))") }
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
            let polled = curl_multi_poll(multi, nil, 0, wait, nil)
            inbox.withLock { inbox in
                inbox.isPolling = false
                inbox.wakeupSent = false
            }
            if polled != CURLM_OK {
                Self.logFault("curl_multi_poll failed: \(CurlMultiError(code: polled))")
                // A poll that fails returns at once: wait a scan interval rather than spin a core.
                usleep(useconds_t(Self.timeoutScanInterval / 1_000))
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
            case .resizeConnectionCache: sizeConnectionCache()
            case .run(let work): work()
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
        // Retained until after curl_multi_remove_handle: libcurl calls back with it only meanwhile.
        let context = Unmanaged.passRetained(CallbackContext(transfer))
        transfer.callbackContext = context
        do {
            do {
                try transfer.apply(to: handle, share: shareHandle, context: context.toOpaque())
            } catch  where reused != nil {
                // A handle removed before it got a connection keeps its receive buffer through
                // curl_easy_reset, and then refuses CURLOPT_BUFFERSIZE (libcurl 7.88): drop it and
                // configure a fresh one.
                reused = nil
                guard let fresh = EasyHandle() else { throw error }
                handle = fresh
                try transfer.apply(to: handle, share: shareHandle, context: context.toOpaque())
            }
        } catch {
            releaseContext(of: transfer)
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
            // Not in the multi handle: no callback can come, so the context can go.
            releaseContext(of: transfer)
            handle.options = .mixed
            recycle(handle)
            transfer.complete(
                Self.failedOutcome(CurlErrorMapping.error(for: code, in: "curl_multi_add_handle", url: transfer.url)))
            return
        }
        if reused != nil { handleReuses.add(1, ordering: .relaxed) }
        transfer.runningIndex = running.count
        running.append(transfer)
        if running.count > peakRunning {
            peakRunning = running.count
            sizeConnectionCache()
        }
    }

    /// Lets go of the transfer's callback context: only once its handle is out of the multi
    /// handle, or never got in.
    private func releaseContext(of transfer: Transfer) {
        transfer.callbackContext?.release()
        transfer.callbackContext = nil
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

    func unpause(_ transfer: Transfer, from reason: PauseReasons) {
        guard transfer.pauses.contains(reason), transfer.isRunning, let handle = transfer.handle else {
            return
        }
        transfer.pauses.remove(reason)
        guard transfer.pauses.isEmpty else { return }
        transfer.noteActivity()
        // Outside any callback: libcurl may deliver the held chunk from inside this call.
        let code = curl_easy_pause(handle.raw, CURLPAUSE_CONT)
        // A transfer that cannot go on would hang until its timeout: it fails with libcurl's reason.
        guard code != CURLE_OK, transfer.isRunning else { return }
        // libcurl hands the held chunk to the write callback from inside this call; one the
        // callback refused comes back as CURLE_WRITE_ERROR, and the callback's own reason (a
        // body that fails to inflate or passes the bound, a download that cannot be written)
        // is the failure, as it is when libcurl reports the refusal from curl_multi_perform.
        if transfer.engineFailure == nil {
            transfer.engineFailure = CurlErrorMapping.error(for: code, text: handle.errorText, url: transfer.url)
        }
        finish(transfer, handle: handle, code: code)
    }

    private func readCompletions() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            var context: UnsafeMutableRawPointer?
            guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle,
                ccurl_easy_getinfo_ptr(raw, CURLINFO_PRIVATE, &context) == CURLE_OK, let context,
                let transfer = CallbackContext.transfer(from: context), transfer.isRunning,
                let handle = transfer.handle, handle.raw == raw
            else { continue }
            finish(transfer, handle: handle, code: message.pointee.data.result)
        }
    }

    /// Removes the handle from the multi handle, then reports. Never called from a curl callback.
    func finish(_ transfer: Transfer, handle: EasyHandle, code: CURLcode) {
        let removed = curl_multi_remove_handle(multi, handle.raw)
        removeFromRunning(transfer)
        if removed != CURLM_OK, transfer.engineFailure == nil {
            transfer.engineFailure = CurlErrorMapping.error(
                for: removed, in: "curl_multi_remove_handle", url: transfer.url)
        }
        // A transfer cut short or held paused may leave state behind: reset before reuse.
        if code != CURLE_OK || !transfer.pauses.isEmpty { handle.options = .mixed }
        let outcome = transfer.outcome(from: handle, code: code)
        if transfer.configuration.usesCookieEngine { CookiePersistence.noteTransfer(outcome.head) }
        transfer.handle = nil
        if removed == CURLM_OK {
            releaseContext(of: transfer)
            recycle(handle)
        } else {
            // libcurl may still hold the handle and call back with the context: the context stays
            // retained (a few bytes, on a path libcurl does not take) but holds no transfer, so a
            // callback stops at once. The handle is not reused; its curl_easy_cleanup takes it out.
            transfer.callbackContext?.takeUnretainedValue().detach()
            transfer.callbackContext = nil
            Self.logFault("curl_multi_remove_handle failed: \(CurlMultiError(code: removed))")
        }
        transfer.complete(outcome)
    }

    /// Keeps the handle for the next transfer, options and all: `Transfer.apply` resets it
    /// then if its options do not fit (`EasyHandle.options`).
    private func recycle(_ handle: EasyHandle) {
        guard idleHandles.count < Self.maxIdleHandles else { return }
        idleHandles.append(handle)
    }

    /// Ends every transfer that has made no progress for its `inactivityTimeout`.
    private func scanForInactivity() {
        guard !running.isEmpty else { return }
        // The clock the transfers note their activity on.
        let now = MonotonicClock.coarseNanoseconds()
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

    static func failedOutcome(_ error: HTTPRequestError) -> TransferOutcome {
        TransferOutcome(
            failure: error, head: nil, body: Data(), bytesReceived: 0, bytesSent: 0, metrics: RequestMetrics(),
            redirectURL: nil)
    }
}
