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
            guard state.machine.isCurrent(transfer) else { return nil }
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
            state.machine.responseIsRedirect(followed: redirects)
            state.response.isCompressed =
                state.config.allowCompressedResponse
                && Self.isCompressed(head.headerBlock)
            let listens = isSubclass || Self.hasAttemptListeners(&state)
            if redirects || transfer.configuration.method == "HEAD" {
                return (BodyHandling(.discard), redirects, listens)
            }
            // Lazy inflation keeps the body as sent; otherwise it is inflated as it arrives.
            let limit =
                state.response.isCompressed && !state.config.shouldWaitToInflateCompressedResponses
                ? HTTPRequest.maxInflatedBytes : nil
            if Self.streamsBody(state) { return (BodyHandling(.stream, inflationLimit: limit), false, listens) }
            let plan = Self.downloadPlan(for: head, state: &state) ?? .memory
            return (BodyHandling(plan, inflationLimit: plan == .discard ? nil : limit), false, listens)
        }
        guard let decision else { return BodyHandling(.discard) }
        if Log.isEnabled {
            let lines = head.headers.map { Log.masked($0.name + ": " + $0.value) }
            Log.message(
                "← \(head.statusLine) for \(transfer.configuration.url)\n    " + lines.joined(separator: "\n    "))
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
            guard state.machine.isCurrent(transfer) else { return false }
            state.response.totalBytesRead = received
            state.response.totalBytesSent = sent
            return state.progress.bytesMoved(received: received, sent: sent)
        }
        if shouldPost { postEvent { self.deliverPendingProgress() } }
    }

    func transfer(_ transfer: Transfer, didComplete outcome: TransferOutcome) {
        let next = state.withLock { state -> AttemptEnding in
            switch state.machine.attemptEnded(transfer) {
            case .stale: return .stale
            case .stoppedByCancel: return .stoppedByCancel
            case .current: break
            }
            state.response.record(outcome, keepingBody: transfer.bodyPlan == .memory)
            if transfer.bodyPlan == .stream { state.response.body = Data() }
            if let failure = outcome.failure {
                // Another way in the PAC file beats retrying a proxy that is not there.
                if Self.failedToReachProxy(outcome, through: transfer.configuration),
                    let choice = Self.advanceToNextPACChoice(&state), state.machine.tryNextProxy()
                {
                    return .nextProxy(choice)
                }
                let limit = state.config.numberOfTimesToRetryOnTimeout
                if failure.type == .requestTimedOut, state.machine.retryAfterTimeout(limit: limit) {
                    return .retry(state.machine.timeoutRetries, of: limit)
                }
                return .end(.failed(failure))
            }
            if state.machine.attempt.followsRedirect {
                return .redirect(outcome.redirectURL, status: state.response.statusCode)
            }
            if CacheDecision.servesStoredCopy(
                status: state.response.statusCode, isRevalidating: state.cacheRun.revalidating != nil)
            {
                return .notModified
            }
            let status = state.response.statusCode
            if state.authentication.presentsAny || status == 401 || status == 407 {
                let saves = Self.rememberWorkingCredentials(&state, status: status, url: state.config.url)
                if status == 401 || status == 407 { return .challenged(proxy: status == 407) }
                return .endRemembering(saves)
            }
            return .end(.finished)
        }
        switch next {
        case .stale, .stoppedByCancel: break
        default: watchForAStuckAttempt()
        }
        switch next {
        case .stale:
            break
        case .stoppedByCancel:
            stoppedTransferEnded()
        case .retry(let attempt, let limit):
            Log.message("retrying \(transfer.configuration.url) after a timeout (retry \(attempt) of \(limit))")
            beginAttempt()
        case .redirect(let location, let status):
            storeRedirectHopThenFollow { self.followRedirect(to: location, status: status) }
        case .challenged(let proxy):
            // The lookup may read the credential file under its flock, which another process
            // can hold for as long as it likes: never on the engine thread.
            DispatchQueue.global().async { self.answerChallenge(proxy: proxy) }
        case .notModified:
            serveNotModified()
        case .nextProxy(let choice):
            Log.message("\(transfer.configuration.url): the proxy could not be reached; trying \(choice)")
            beginAttempt()
        case .endRemembering(let saves) where saves.isEmpty:
            releaseCredentialPrompts()
            finishAttempt(.finished)
        case .endRemembering(let saves):
            // Saving writes the credential file under its flock: off the engine thread, and
            // before the request finishes, so its callbacks find the file written.
            DispatchQueue.global().async {
                Self.save(saves)
                self.releaseCredentialPrompts()
                self.finishAttempt(.finished)
            }
        case .end(let result):
            if Log.isEnabled { Log.message(Self.summary(of: outcome, url: transfer.configuration.url)) }
            if case .failed(let error) = result, error.type == .connectionFailure, let queue = read(\.queue),
                queue.reachabilityHost != nil, state.withLock({ $0.machine.checkReachability() })
            {
                queue.requestFailedToConnect(self, error: error)
            } else {
                finishAttempt(result)
            }
        }
    }

    /// Debug builds check that an ended attempt led somewhere: to the request's end, a new
    /// transfer, a decision it waits for, a reachability check or hold, or finishing work. A
    /// request left executing with none of those would never finish.
    private func watchForAStuckAttempt() {
        #if DEBUG
        let attempt = read(\.machine.attempt.number)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.stuckAttemptDelay) { [weak self] in
            guard let self else { return }
            let isStuck = self.state.withLock { state in
                state.machine.attempt.number == attempt && state.machine.isStuck
            }
            assert(!isStuck, "\(self) is executing with no transfer and nothing to wait for")
        }
        #endif
    }

    #if DEBUG
    /// Longer than any step between two attempts takes.
    static let stuckAttemptDelay: TimeInterval = 10
    #endif

    private enum AttemptEnding {
        /// A transfer the request no longer follows (an attempt replaced, or a late report).
        case stale
        /// The transfer a cancel stopped: its failure is delivered now.
        case stoppedByCancel
        case retry(Int, of: Int)
        case redirect(String?, status: Int)
        case end(RequestStateMachine.Outcome)
        /// A 401 or 407: the request looks for credentials (or asks, or fails).
        case challenged(proxy: Bool)
        /// The proxy could not be reached: the PAC file's next choice.
        case nextProxy(PACChoice)
        /// A 304 confirmed the cached copy this attempt asked about.
        case notModified
        /// Credentials worked: remember them (the file outside the lock), then finish.
        case endRemembering(CredentialSaves)
    }

    /// The last attempt ended: a download moves into place (or its partial file goes), the
    /// parsing block runs, and then the request completes. Moving and parsing happen off the
    /// engine thread.
    func finishAttempt(_ outcome: RequestStateMachine.Outcome) {
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
        let (needsMoreWork, stores) = state.withLock { state -> (Bool, Bool) in
            let stores = Self.wantsStoring(state)
            guard state.config.downloadDestinationPath != nil || state.config.parsingBlock != nil || stores else {
                return (false, false)
            }
            state.machine.beginFinishing()
            return (true, stores)
        }
        guard needsMoreWork else {
            complete(outcome)
            return
        }
        DispatchQueue.global().async {
            if let failure = self.moveDownloadIntoPlace() {
                self.complete(.failed(failure))
            } else {
                if stores { self.storeInCache() }
                self.completeAfterParsing(outcome)
            }
        }
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
