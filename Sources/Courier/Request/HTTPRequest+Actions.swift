import Foundation

/// The one driver of a request's core: each event is handled under the lock, once, and its
/// actions are performed here, after the lock is left. What an action does with files (the
/// credential file, the cache, a download) or user code goes to a worker queue or the callback
/// mailbox: the thread that sent the event may be the engine's.
extension HTTPRequest {
    /// Sends `event` to the core under the request's lock, then performs its actions outside it.
    /// Returns whether the step the event announced goes ahead (`.proceed`), for a caller whose
    /// own code performs that step.
    @discardableResult
    func send(_ event: RequestEvent) -> Bool {
        let actions = state.withLock { $0.core.handle(event) }
        let proceeds = actions.proceeds
        perform(actions)
        return proceeds
    }

    /// Performs what the core decided, in order. Outside the request's lock. `mailbox`: the
    /// request's, and `queue`: the queue it leaves once finished, when the caller took them in
    /// the event's lock section (a lock less each, for events every request has).
    func perform(_ actions: RequestActions, mailbox: CallbackMailbox? = nil, leaving queue: NetworkQueue? = nil) {
        actions.forEach { perform($0, mailbox: mailbox, leaving: queue) }
    }

    private func perform(_ action: borrowing RequestAction, mailbox: CallbackMailbox?, leaving queue: NetworkQueue?) {
        switch action {
        case .proceed:
            break
        case .markExecuting:
            // corelibs' Operation marks itself executing when told; it has no KVO observers to
            // tell on Linux.
            willChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isExecuting")
        case .beginAttempt:
            beginAttempt()
        case .addToEngine(let transfer):
            Engine.shared.add(transfer)
        case .startProbe:
            start()
        case .lookForWaitingRequests:
            read(\.queue)?.startWaitingRequests()
        case .stopTransfer(let transfer, let error):
            // The engine writes no more of it from now on (its callbacks check the flag), and
            // takes it out of the multi handle at its next turn; its end delivers the failure.
            transfer.abandon()
            Engine.shared.cancel(transfer, with: error)
        case .discardPartialDownloadThenDeliverFailure(let error):
            (mailbox ?? read(\.mailbox))?.post {
                self.discardPartialDownload()
                self.deliverTerminal(.failed(error))
            }
        case .leaveQueueWaitingList:
            // Before the failure is posted: once posted, the request may finish (and let go of its
            // queue) before the next line, and a queue that meanwhile gave it a slot would never
            // get the slot back (the cancel storm in LoadTests lost 32 slots).
            read(\.queue)?.requestEndedWhileWaiting(self)
        case .stopWaitingForCredentialPrompt:
            CredentialPrompts.shared.stopWaiting(self)
        case .takeNextProxy:
            let choice = state.withLock { Self.advanceToNextPACChoice(&$0) }
            if let choice { Log.message("\(Log.masked(url)): the proxy could not be reached; trying \(choice)") }
        case .storeRedirectHopThenFollow(let location, let status):
            storeRedirectHopThenFollow { self.followRedirect(to: location, status: status) }
        case .decideRedirect(let pending):
            postEvent { self.decideRedirect(pending) }
        case .askWhereToRedirect(let next):
            askWhereToRedirect(next)
        case .followRedirect(let next, let status):
            go(to: next, afterRedirectWith: status)
        case .rememberCredentialsThenAnswerChallenge(let proxy):
            let saves = state.withLock {
                Self.rememberWorkingCredentials(&$0, status: proxy ? 407 : 401, url: $0.config.url)
            }
            // The lookup may read the credential file under its flock, which another process
            // can hold for as long as it likes: never on the engine thread.
            DispatchQueue.global().async {
                if !saves.isEmpty { Self.save(saves) }
                self.answerChallenge(proxy: proxy)
            }
        case .answerChallenge(let proxy):
            DispatchQueue.global().async { self.answerChallenge(proxy: proxy) }
        case .failForCredentials(let proxy, let reason):
            finishAttempt(
                .failed(
                    HTTPRequestError(
                        type: .authentication,
                        message: "The \(proxy ? "proxy" : "server") asked for credentials and \(reason.reason)",
                        url: url)))
        case .serveNotModified:
            serveNotModified()
        case .checkReachability(let error):
            if let queue = read(\.queue) {
                queue.requestFailedToConnect(self, error: error)
            } else {
                send(.reachabilityCheckFound(.reachable(error)))
            }
        case .rememberCredentialsThenFinish:
            let saves = state.withLock {
                Self.rememberWorkingCredentials(&$0, status: $0.response.statusCode, url: $0.config.url)
            }
            guard !saves.isEmpty else {
                releaseCredentialPrompts()
                return finishAttempt(.finished)
            }
            // Saving writes the credential file under its flock: off the engine thread, and
            // before the request finishes, so its callbacks find the file written.
            DispatchQueue.global().async {
                Self.save(saves)
                self.releaseCredentialPrompts()
                self.finishAttempt(.finished)
            }
        case .reviewResponse:
            // The class reads the body and may parse it: never on the engine thread.
            reviewResponse { self.send(.responseReviewed($0)) }
        case .retryAfter(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.send(.retryDelayElapsed) }
        case .finishAttempt(let outcome):
            finishAttempt(outcome)
        case .deliverTerminal(let outcome):
            (mailbox ?? read(\.mailbox))?.post { self.deliverTerminal(outcome) }
        case .postFinished:
            postFinished(leaving: queue ?? state.withLock { $0.queue.take() })
        }
    }
}
