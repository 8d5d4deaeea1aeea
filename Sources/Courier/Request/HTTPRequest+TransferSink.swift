import Foundation

/// What the engine reports about an attempt, on its own thread. Each method records the facts
/// under the lock, decides, and posts callbacks; none blocks or runs user code.
extension HTTPRequest: TransferSink {
    func transfer(_ transfer: Transfer, didReceive head: ResponseHead) -> BodyHandling {
        let isSubclass = hasOverridableHooks
        if head.keepAliveTimeout != nil || !KeepAliveLimits.isEmpty, transfer.configuration.reusesConnections {
            // The connection this came on lives by the server's word (ASI); so do later requests'.
            KeepAliveLimits.shared.note(head.keepAliveTimeout.map(Int.init), from: transfer.configuration.url)
        }
        let decision = state.withLock { state -> (handling: BodyHandling, redirects: Bool, listens: Bool)? in
            guard state.core.isCurrent(transfer) else { return nil }
            if let timeout = head.keepAliveTimeout, state.config.shouldAttemptPersistentConnection {
                state.config.persistentConnectionTimeoutSeconds = TimeInterval(timeout)
            }
            state.response.statusCode = head.statusCode
            state.response.statusLine = head.statusLine
            state.response.headerBlock = head.headerBlock
            // The Location is looked for only in a redirect: most responses are not one.
            let redirects =
                RedirectPolicy.isRedirectStatus(head.statusCode)
                && RedirectPolicy(state.config).follows(
                    status: head.statusCode, hasLocation: head.headerBlock.value(of: "Location") != nil)
            _ = state.core.handle(.headReceived(transfer, followsRedirect: redirects))
            state.response.isCompressed =
                state.config.allowCompressedResponse
                && Self.isCompressed(head)
            let listens = isSubclass || Self.hasAttemptListeners(&state)
            if redirects || transfer.configuration.method == "HEAD" {
                return (BodyHandling(.discard), redirects, listens)
            }
            // Lazy inflation keeps the body as sent; otherwise it is inflated as it arrives.
            let limit =
                state.response.isCompressed && !state.config.shouldWaitToInflateCompressedResponses
                ? HTTPRequest.maxInflatedBytes : nil
            // A service's error document is read by its review (S3Request) even when the body
            // streams: handed to a data block, it would be lost to the review and taken for the object.
            let isServiceError = state.config.reviewsResponses && head.statusCode >= 300
            if Self.streamsBody(state), !isServiceError {
                return (BodyHandling(.stream, inflationLimit: limit), false, listens)
            }
            let plan = Self.downloadPlan(for: head, state: &state) ?? .memory
            return (BodyHandling(plan, inflationLimit: plan == .discard ? nil : limit), false, listens)
        }
        guard let decision else { return BodyHandling(.discard) }
        if Log.isEnabled {
            let lines = head.headers.map { Log.masked($0.name + ": " + $0.value) }
            Log.message(
                "← \(head.statusLine) for \(CredentialMask.url(transfer.configuration.url))\n    "
                    + lines.joined(separator: "\n    "))
        }
        let method = transfer.configuration.method
        guard decision.redirects || decision.listens else { return decision.handling }
        postEvent {
            // ASI: requestRedirected comes before the headers callback of the redirect itself.
            if decision.redirects { self.announce(.redirected) }
            self.progressHeadersReceived(head, method: method, isFollowedRedirect: decision.redirects)
            self.announce(.headersReceived(head.headers))
        }
        return decision.handling
    }

    func transfer(_ transfer: Transfer, didProgressReceiving received: Int64, sending sent: Int64) {
        let shouldPost = state.withLock { state -> Bool in
            guard state.core.isCurrent(transfer) else { return false }
            state.response.totalBytesRead = received
            state.response.totalBytesSent = sent
            return state.progress.bytesMoved(received: received, sent: sent)
        }
        if shouldPost { postEvent { self.deliverPendingProgress() } }
    }

    func transfer(_ transfer: Transfer, didComplete outcome: TransferOutcome) {
        // What a connection failure means is the queue's reachability host's to say; the
        // queue's lock comes before the request's (see `Locked`), so it is asked first.
        let watchesReachability =
            outcome.failure?.type == .connectionFailure && read(\.queue)?.reachabilityHost != nil
        let actions = state.withLock { state -> RequestActions in
            guard state.core.transfer === transfer else { return .none }
            var report = AttemptReport(failure: outcome.failure)
            if state.core.isCurrent(transfer) {
                state.response.record(outcome, keepingBody: transfer.bodyPlan == .memory)
                if transfer.bodyPlan == .stream { state.response.body = Data() }
                report.status = state.response.statusCode
                report.location = outcome.redirectURL
                report.proxyUnreachable = Self.failedToReachProxy(outcome, through: transfer.configuration)
                report.hasAnotherProxy = report.proxyUnreachable && Self.hasAnotherPACChoice(state)
                report.timeoutRetryLimit = state.config.numberOfTimesToRetryOnTimeout
                report.queueWatchesReachability = watchesReachability
                report.isRevalidating = state.cacheRun.revalidating != nil
                report.presentsCredentials = state.authentication.presentsAny
                report.reviewsResponse =
                    state.config.reviewsResponses
                    && (report.status >= 300 || state.config.reviewsSuccessfulResponses)
            }
            return state.core.handle(.transferEnded(transfer, report))
        }
        if Log.isEnabled { logEnd(of: transfer, outcome, leadingTo: actions) }
        watchForAStuckAttempt(after: actions)
        perform(actions)
    }

    private func logEnd(of transfer: Transfer, _ outcome: TransferOutcome, leadingTo actions: RequestActions) {
        let url = CredentialMask.url(transfer.configuration.url)
        for action in actions {
            switch action {
            case .beginAttempt where outcome.failure?.type == .requestTimedOut:
                let (retry, limit) = state.withLock { ($0.core.timeoutRetries, $0.config.numberOfTimesToRetryOnTimeout) }
                Log.message("retrying \(url) after a timeout (retry \(retry) of \(limit))")
            case .finishAttempt, .checkReachability:
                Log.message(Self.summary(of: outcome, url: url))
            default:
                break
            }
        }
    }

    /// Debug builds check that an ended attempt led somewhere: to the request's end, a new
    /// transfer, a decision it waits for, a reachability check or hold, or finishing work. A
    /// request left preparing with none of those would never finish.
    private func watchForAStuckAttempt(after actions: RequestActions) {
        #if DEBUG
        guard !actions.isEmpty else { return }
        let attempt = read(\.core.attempt.number)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.stuckAttemptDelay) { [weak self] in
            guard let self else { return }
            let isStuck = self.state.withLock { state in
                state.core.attempt.number == attempt && state.core.isStuck
            }
            assert(!isStuck, "\(self) is executing with no transfer and nothing to wait for")
        }
        #endif
    }

    #if DEBUG
    /// Longer than any step between two attempts takes.
    static let stuckAttemptDelay: TimeInterval = 10
    #endif

    /// The last attempt ended: a download moves into place (or its partial file goes), the
    /// parsing block runs, and then the request completes. Moving and parsing happen off the
    /// engine thread.
    func finishAttempt(_ outcome: RequestCore.Outcome) {
        guard case .finished = outcome else {
            discardPartialDownload()
            if case .failed(let error) = outcome, fallBackToCache(after: error) { return }
            if case .failed(let error) = outcome,
                let body = state.withLock({ Self.takeChallengeBodyForDestination(&$0, failure: error) })
            {
                DispatchQueue.global().async {
                    self.writeChallengeBodyToDestination(body)
                    self.completeAfterParsing(outcome)
                }
                return
            }
            completeAfterParsing(outcome)
            return
        }
        // Most requests have nothing left to do: they complete in the same lock section.
        var completed = RequestActions.none
        var mailbox: CallbackMailbox?
        let work = state.withLock { state -> Finishing in
            let stores = Self.wantsStoring(state)
            guard state.config.downloadDestinationPath != nil || state.config.parsingBlock != nil || stores else {
                completed = state.core.handle(.completed(outcome))
                mailbox = state.mailbox
                return .none
            }
            guard state.core.handle(.finishing).proceeds else { return .none }
            return stores ? .movingAndStoring : .moving
        }
        guard work != .none else { return perform(completed, mailbox: mailbox) }
        let stores = work == .movingAndStoring
        DispatchQueue.global().async {
            if let failure = self.moveDownloadIntoPlace() {
                self.complete(.failed(failure))
            } else {
                if stores { self.storeInCache() }
                self.completeAfterParsing(outcome)
            }
        }
    }

    /// What is left once the last attempt ended well.
    private enum Finishing {
        /// Nothing: the request completed (or was cancelled meanwhile).
        case none
        /// A download to move or a parsing block to run…
        case moving
        /// …and the response to store in the download cache.
        case movingAndStoring
    }

    private static func summary(of outcome: TransferOutcome, url: String) -> String {
        let milliseconds = String(format: "%.1f", outcome.metrics.total * 1000)
        if let failure = outcome.failure { return "failed \(url) after \(milliseconds) ms: \(failure.message)" }
        return "done \(outcome.head?.statusCode ?? 0) \(url) in \(milliseconds) ms, \(outcome.bytesReceived) bytes in, "
            + "\(outcome.bytesSent) bytes out (dns \(outcome.metrics.dns)s, connect \(outcome.metrics.connect)s, "
            + "first byte \(outcome.metrics.firstByte)s)"
    }
}

extension ResponseState {
    /// Takes over what an attempt measured and received.
    mutating func record(_ outcome: TransferOutcome, keepingBody: Bool) {
        if let head = outcome.head {
            statusCode = head.statusCode
            statusLine = head.statusLine
            headerBlock = head.headerBlock
        }
        totalBytesRead = outcome.bytesReceived
        totalBytesSent = outcome.bytesSent
        metrics = outcome.metrics
        if keepingBody, outcome.head != nil { body = outcome.body }
    }
}
