import XCTest

@testable import Courier

/// The request's lifecycle, driven event by event without sockets: every phase and activity, a
/// cancel arriving in each, late events from transfers that ended, and queue membership.
final class RequestStateMachineTests: XCTestCase {
    private let cancelled = HTTPRequestError.cancelled(nil)

    func testThatARunFinishesAfterTheTerminalCallback() {
        var machine = RequestStateMachine()
        XCTAssertEqual(machine.start(), .run)
        XCTAssertTrue(machine.isExecuting)
        XCTAssertTrue(machine.complete(.finished))
        XCTAssertTrue(machine.isExecuting, "still executing until the callback ran")
        XCTAssertFalse(machine.isFinished)
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
        XCTAssertTrue(machine.isFinished)
        XCTAssertFalse(machine.isExecuting)
    }

    func testThatCancelWinsOverALateCompletion() {
        var machine = RequestStateMachine()
        _ = machine.start()
        let transfer = makeTransfer()
        XCTAssertTrue(machine.attemptBegan(with: transfer))
        XCTAssertEqual(machine.cancel(cancelled), .stopThenDeliverFailure(transfer), "the transfer is stopped")
        XCTAssertFalse(machine.complete(.finished), "the transfer's own ending is ignored")
        XCTAssertEqual(machine.cancel(cancelled), .none, "a second cancel does nothing")
        XCTAssertTrue(machine.isCancelled)
    }

    /// A cancelled request's failure waits for the engine to report that the stopped transfer
    /// ended; until then the transfer's events are stale, so nothing more of it is recorded.
    func testThatACancelledTransfersEventsAreStaleAndItsEndIsTheCancelsOwn() {
        var machine = RequestStateMachine()
        _ = machine.start()
        let transfer = makeTransfer()
        XCTAssertTrue(machine.attemptBegan(with: transfer))
        XCTAssertEqual(machine.cancel(cancelled), .stopThenDeliverFailure(transfer))
        XCTAssertFalse(machine.isCurrent(transfer), "a head or a chunk after the cancel is not taken")
        XCTAssertFalse(machine.hasDeliveredTerminal)
        XCTAssertEqual(machine.attemptEnded(transfer), .stoppedByCancel, "the engine stopped it: deliver now")
        XCTAssertEqual(machine.attemptEnded(transfer), .stale, "once")
        XCTAssertNil(machine.transfer)
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
        XCTAssertTrue(machine.isFinished)
    }

    func testThatAQueuedRequestStartedBeforeItsSlotBeginsOnlyWithTheSlot() {
        var machine = RequestStateMachine()
        XCTAssertTrue(machine.joinQueue())
        XCTAssertTrue(machine.isWaitingInQueue)
        XCTAssertEqual(machine.start(), .none, "the OperationQueue started it; no slot yet")
        XCTAssertFalse(machine.isExecuting, "waiting for a slot is not executing")
        XCTAssertTrue(machine.begin(), "the slot begins the first attempt")
        XCTAssertFalse(machine.begin(), "once")
        XCTAssertTrue(machine.isExecuting)
        XCTAssertTrue(machine.complete(.finished))
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
        XCTAssertTrue(machine.isFinished)
    }

    func testThatASlotBeforeTheOperationStartWaitsForTheStartToFinish() {
        var machine = RequestStateMachine()
        XCTAssertTrue(machine.begin())
        XCTAssertTrue(machine.complete(.finished))
        XCTAssertEqual(machine.terminalCallbackDelivered(), .none, "not started by its OperationQueue yet")
        XCTAssertEqual(machine.start(), .postFinished, "the late start finishes it")
    }

    func testThatACancelWhileWaitingForASlotFinishesWithoutBeginning() {
        var machine = RequestStateMachine()
        _ = machine.joinQueue()
        _ = machine.start()
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure)
        XCTAssertFalse(machine.begin(), "a slot given too late begins nothing")
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
    }

    func testThatAStartOfACancelledOperationBeginsNothing() {
        var machine = RequestStateMachine()
        XCTAssertEqual(machine.start(mayBegin: false), .none)
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure)
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
    }

    func testThatARequestThatStartedCannotJoinAQueue() {
        var machine = RequestStateMachine()
        _ = machine.start()
        XCTAssertFalse(machine.joinQueue())
        XCTAssertTrue(machine.isExecuting)
    }

    func testThatARedirectDecisionIsAwaitedOnceAndTakenOnce() {
        var machine = RequestStateMachine()
        _ = machine.start()
        XCTAssertNil(machine.takeRedirectDecision(), "nothing awaited: a stray redirect(to:) does nothing")
        XCTAssertTrue(machine.awaitRedirectDecision(status: 303))
        XCTAssertEqual(machine.activity, .awaitingRedirectDecision(status: 303))
        XCTAssertFalse(machine.awaitRedirectDecision(status: 302), "one decision at a time")
        XCTAssertEqual(machine.takeRedirectDecision(), 303)
        XCTAssertNil(machine.takeRedirectDecision(), "a second redirect(to:) does nothing")
        XCTAssertEqual(machine.activity, .attempting)
    }

    func testThatACancelWhileAwaitingARedirectDecisionStopsNoTransferAndDropsTheDecision() {
        var machine = RequestStateMachine()
        _ = machine.start()
        _ = machine.awaitRedirectDecision(status: 302)
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure)
        XCTAssertNil(machine.awaitedRedirectStatus)
        XCTAssertNil(machine.takeRedirectDecision(), "a decision after the cancel begins nothing")
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
    }

    func testThatAHeldRequestRunsAgainOnlyIfStillHeld() {
        var machine = RequestStateMachine()
        _ = machine.start()
        XCTAssertTrue(machine.holdForReachability())
        XCTAssertFalse(machine.holdForReachability())
        XCTAssertTrue(machine.releaseFromReachabilityHold())
        XCTAssertFalse(machine.releaseFromReachabilityHold(), "released once")
        XCTAssertTrue(machine.holdForReachability())
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure)
        XCTAssertFalse(machine.releaseFromReachabilityHold(), "a cancelled request does not run again")
        XCTAssertFalse(machine.holdForReachability(), "nor is it held")
    }

    func testThatALateEndOfAnAttemptAfterACancelChangesNothing() {
        var machine = RequestStateMachine()
        _ = machine.start()
        _ = machine.cancel(cancelled)
        XCTAssertFalse(machine.complete(.finished), "the transfer's late ending")
        XCTAssertFalse(machine.awaitRedirectDecision(status: 301), "a late redirect")
        XCTAssertFalse(machine.holdForReachability(), "a late connection failure")
        XCTAssertFalse(machine.begin(), "a late slot")
        XCTAssertTrue(machine.isCancelled)
    }

    func testThatAttemptsAreNumberedAndSayWhyTheyAreMade() {
        var machine = RequestStateMachine()
        _ = machine.start()
        XCTAssertEqual(machine.attempt, .init(number: 1, kind: .first))
        machine.responseIsRedirect(followed: true)
        XCTAssertTrue(machine.attempt.followsRedirect)
        machine.followRedirect()
        XCTAssertEqual(machine.attempt, .init(number: 2, kind: .redirect), "a new hop follows no redirect yet")
        XCTAssertTrue(machine.retryAfterTimeout(limit: 2))
        XCTAssertTrue(machine.retryAfterTimeout(limit: 2))
        XCTAssertFalse(machine.retryAfterTimeout(limit: 2), "the retries are used up")
        XCTAssertEqual(machine.timeoutRetries, 2)
        XCTAssertEqual(machine.attempt, .init(number: 4, kind: .timeoutRetry))
        _ = machine.holdForReachability()
        _ = machine.releaseFromReachabilityHold()
        XCTAssertEqual(machine.attempt, .init(number: 5, kind: .afterHostReturned))
        _ = machine.cancel(cancelled)
        XCTAssertFalse(machine.retryAfterTimeout(limit: 9), "no retry after a cancel")
        machine.followRedirect()
        XCTAssertEqual(machine.attempt.number, 5, "nor another hop")
    }

    func testThatOnlyAnAttemptWithoutATransferIsStuck() {
        var machine = RequestStateMachine()
        XCTAssertFalse(machine.isStuck, "idle")
        _ = machine.start()
        XCTAssertTrue(machine.isStuck, "attempting, with no transfer made")
        let transfer = makeTransfer()
        _ = machine.attemptBegan(with: transfer)
        XCTAssertFalse(machine.isStuck, "the transfer is with the engine")
        XCTAssertEqual(machine.attemptEnded(transfer), .current)
        XCTAssertTrue(machine.isStuck, "ended, and nothing decided yet")
        XCTAssertTrue(machine.checkReachability())
        XCTAssertFalse(machine.isStuck, "checking the host")
        XCTAssertTrue(machine.holdForReachability(), "from the check")
        XCTAssertFalse(machine.isStuck, "held")
        _ = machine.releaseFromReachabilityHold()
        _ = machine.awaitRedirectDecision(status: 307)
        XCTAssertFalse(machine.isStuck, "awaiting a decision")
        _ = machine.takeRedirectDecision()
        machine.beginFinishing()
        XCTAssertEqual(machine.activity, .finishing)
        XCTAssertFalse(machine.isStuck, "finishing")
        XCTAssertTrue(machine.complete(.finished), "finishing ends in completing")
        XCTAssertFalse(machine.isStuck)
    }

    func testThatTheTerminalNotificationGoesOutOnce() {
        var machine = RequestStateMachine()
        XCTAssertTrue(machine.claimTerminalNotification())
        XCTAssertFalse(machine.claimTerminalNotification())
    }

    func testThatCancelBeforeStartDeliversThenFinishesWhenStarted() {
        var machine = RequestStateMachine()
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure)
        XCTAssertEqual(machine.terminalCallbackDelivered(), .none, "not started: no isFinished yet")
        XCTAssertEqual(machine.start(), .postFinished)
        XCTAssertTrue(machine.isFinished)
    }

    func testThatStartingWhileTheCancelCallbackIsPendingWaitsForIt() {
        var machine = RequestStateMachine()
        _ = machine.cancel(cancelled)
        XCTAssertEqual(machine.start(), .none)
        XCTAssertEqual(machine.terminalCallbackDelivered(), .postFinished)
    }

    func testThatCompletionAfterFinishIsIgnored() {
        var machine = RequestStateMachine()
        _ = machine.start()
        _ = machine.complete(.failed(cancelled))
        _ = machine.terminalCallbackDelivered()
        XCTAssertFalse(machine.complete(.finished))
        XCTAssertEqual(machine.cancel(cancelled), .none)
        XCTAssertEqual(machine.start(), .none)
    }

    // MARK: - Transfers

    func testThatALateEventFromAnEndedTransferIsStale() {
        var machine = RequestStateMachine()
        _ = machine.start()
        let first = makeTransfer()
        XCTAssertTrue(machine.attemptBegan(with: first))
        XCTAssertTrue(machine.isCurrent(first))
        XCTAssertEqual(machine.attemptEnded(first), .current)
        XCTAssertFalse(machine.isCurrent(first), "ended")
        XCTAssertEqual(machine.attemptEnded(first), .stale, "a second end of the same transfer is stale")
        XCTAssertTrue(machine.retryAfterTimeout(limit: 1))
        let second = makeTransfer()
        XCTAssertTrue(machine.attemptBegan(with: second))
        XCTAssertEqual(machine.attemptEnded(first), .stale, "the first attempt's late end does not end the second")
        XCTAssertTrue(machine.isCurrent(second))
        XCTAssertEqual(machine.attemptEnded(second), .current)
        XCTAssertTrue(machine.takeEndedTransfer() === second, "the last ended transfer waits to be freed")
        XCTAssertNil(machine.takeEndedTransfer(), "once")
    }

    func testThatATransferMadeAfterACancelIsNotKept() {
        var machine = RequestStateMachine()
        _ = machine.start()
        XCTAssertEqual(machine.cancel(cancelled), .deliverFailure, "cancelled while being set up")
        let late = makeTransfer()
        XCTAssertFalse(machine.attemptBegan(with: late), "the transfer never reaches the engine")
        XCTAssertNil(machine.transfer)
        XCTAssertEqual(machine.attemptEnded(late), .stale)
    }

    func testThatCompletingLetsGoOfTheTransfer() {
        var machine = RequestStateMachine()
        _ = machine.start()
        _ = machine.attemptBegan(with: makeTransfer())
        XCTAssertTrue(machine.complete(.failed(cancelled)), "bad input found mid-attempt")
        XCTAssertNil(machine.transfer)
        XCTAssertEqual(machine.cancel(cancelled), .none)
    }

    /// A cancel in every state ends the request, or does nothing once it has ended; it stops a
    /// transfer only when one is with the engine.
    func testThatACancelInEachStateEndsTheRequestOnce() {
        let transfer = makeTransfer()
        var states: [(String, RequestStateMachine, RequestStateMachine.CancelAction)] = []
        var machine = RequestStateMachine()
        states.append(("idle", machine, .deliverFailure))
        _ = machine.joinQueue()
        states.append(("waiting in a queue", machine, .deliverFailure))
        _ = machine.start()
        states.append(("waiting in a started queue", machine, .deliverFailure))
        _ = machine.begin()
        states.append(("setting up its first attempt", machine, .deliverFailure))
        _ = machine.attemptBegan(with: transfer)
        states.append(("attempting", machine, .stopThenDeliverFailure(transfer)))
        _ = machine.attemptEnded(transfer)
        var awaiting = machine
        _ = awaiting.awaitRedirectDecision(status: 302)
        states.append(("awaiting a redirect decision", awaiting, .deliverFailure))
        var checking = machine
        _ = checking.checkReachability()
        states.append(("checking reachability", checking, .deliverFailure))
        var held = checking
        _ = held.holdForReachability()
        states.append(("held for reachability", held, .deliverFailure))
        var finishing = machine
        finishing.beginFinishing()
        states.append(("finishing", finishing, .deliverFailure))
        var completing = finishing
        _ = completing.complete(.finished)
        states.append(("completing", completing, .none))
        var finished = completing
        _ = finished.terminalCallbackDelivered()
        XCTAssertTrue(finished.isFinished)
        states.append(("finished", finished, .none))

        for (name, state, expected) in states {
            var machine = state
            XCTAssertEqual(machine.cancel(cancelled), expected, name)
            XCTAssertEqual(machine.cancel(cancelled), .none, "\(name): a second cancel does nothing")
            XCTAssertTrue(machine.isComplete, name)
            XCTAssertFalse(machine.begin(), "\(name): nothing begins after a cancel")
            XCTAssertFalse(machine.attemptBegan(with: makeTransfer()), "\(name): no transfer after a cancel")
            if expected != .none {
                XCTAssertTrue(machine.isCancelled, name)
                XCTAssertEqual(machine.phase, .completing, name)
            }
        }
    }

    // MARK: - Queue membership

    func testThatARequestIsEnqueuedOnceAndNotAfterItStarted() {
        var machine = RequestStateMachine()
        XCTAssertTrue(machine.mayEnqueue)
        XCTAssertEqual(machine.enqueue(), true, "counted by its queue")
        XCTAssertNil(machine.enqueue(), "an operation joins one queue once")
        XCTAssertFalse(machine.mayRunSynchronously, "nor runs synchronously")
        var started = RequestStateMachine()
        _ = started.start()
        XCTAssertFalse(started.mayEnqueue)
        XCTAssertNil(started.enqueue())
    }

    func testThatARequestCancelledBeforeItJoinsIsOnlyFinishedByItsQueue() {
        var machine = RequestStateMachine()
        _ = machine.cancel(cancelled)
        XCTAssertEqual(machine.enqueue(), false, "not counted")
        XCTAssertFalse(machine.membership.isCounted)
        XCTAssertFalse(machine.joinQueue(), "it waits for no slot")
        XCTAssertEqual(machine.terminalCallbackDelivered(), .none)
        XCTAssertEqual(machine.start(), .postFinished, "its queue's start finishes it")
    }

    func testThatADependencyWaitIsTakenOnceAndOnlyWhileWaitingInAQueue() {
        var machine = RequestStateMachine()
        _ = machine.enqueue()
        _ = machine.joinQueue()
        XCTAssertFalse(machine.takeDependencyWait(), "never passed over")
        machine.passOverForDependencies()
        XCTAssertTrue(machine.takeDependencyWait(), "the queue looks again")
        XCTAssertFalse(machine.takeDependencyWait(), "once")
        machine.passOverForDependencies()
        _ = machine.begin()
        XCTAssertFalse(machine.takeDependencyWait(), "it has a slot already")
    }

    func testThatAProbeIsNoWaitingOperationAndTellsItsQueueNothing() {
        let target = HTTPRequest(url: URL(string: "http://127.0.0.1:1/")!)
        var machine = RequestStateMachine()
        machine.becomeProbe(for: target)
        XCTAssertTrue(machine.isProbe)
        XCTAssertTrue(machine.membership.probeTarget === target)
        XCTAssertFalse(machine.membership.notifiesQueue)
        XCTAssertFalse(machine.joinQueue(), "its queue starts it when it has a slot")
        XCTAssertEqual(machine.start(), .run)
    }

    func testThatClearedDelegatesAndAnUnreachableHostAreRemembered() {
        var machine = RequestStateMachine()
        XCTAssertTrue(machine.membership.notifiesQueue)
        machine.stopNotifyingQueue()
        XCTAssertFalse(machine.membership.notifiesQueue)
        XCTAssertFalse(machine.membership.endedUnreachable)
        machine.endUnreachable()
        XCTAssertTrue(machine.membership.endedUnreachable)
    }

    private func makeTransfer() -> Transfer {
        let configuration = TransferConfiguration(
            url: "http://127.0.0.1:1/", method: "GET", headerLines: [], body: nil, usesHTTP10: false,
            inactivityTimeout: 10)
        return Transfer(configuration: configuration, sink: sink)
    }

    /// The sink the transfers above would report to; no transfer here reaches the engine.
    private let sink = HTTPRequest(url: URL(string: "http://127.0.0.1:1/")!)
}
