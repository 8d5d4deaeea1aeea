import XCTest

@testable import Courier

/// The request's core driven event by event, without a socket: the lifecycle and the queue's
/// part in it, what an attempt's end leads to, redirects and their limit, the credentials ladder,
/// the deciders held weakly, reachability, a cancel arriving in every state, and the terminal
/// notification. Each test reads only what the core says: its actions, phase, activity and
/// counters.
final class RequestCoreTests: XCTestCase {
    private let cancelled = HTTPRequestError.cancelled(nil)
    private let timedOut = HTTPRequestError(type: .requestTimedOut, message: "no progress for 10 seconds")
    private let refused = HTTPRequestError(type: .connectionFailure, message: "Connection refused")
    private let here = URL(string: "http://127.0.0.1:1/")!
    private let next = URL(string: "http://127.0.0.1:1/next")!
    private let elsewhere = URL(string: "http://127.0.0.1:1/elsewhere")!
    /// What a cancel does when no transfer is with the engine.
    private let cancelDelivers = [
        "leaveQueueWaitingList", "discardPartialDownloadThenDeliverFailure(requestCancelled)",
    ]

    // MARK: - Lifecycle

    func testThatStartMarksTheOperationExecutingAndBeginsTheFirstAttempt() {
        var core = RequestCore()
        XCTAssertEqual(core.phase, .idle)
        XCTAssertFalse(core.isExecuting)
        XCTAssertFalse(core.hasStarted)
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), ["markExecuting", "beginAttempt"])
        XCTAssertEqual(core.phase, .executing)
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 1, kind: .first, followsRedirect: false))
        XCTAssertTrue(core.hasStarted)
        XCTAssertTrue(core.isExecuting)
        XCTAssertFalse(core.isFinished)
        XCTAssertFalse(core.isComplete)
        XCTAssertNil(core.error)
    }

    func testThatTheTransferMadeGoesToTheEngineAsTheCurrentAttempts() {
        var core = started()
        let transfer = makeTransfer()
        let actions = core.handle(.transferMade(transfer))
        XCTAssertEqual(names(actions), ["addToEngine"])
        XCTAssertTrue(transferOf(actions) === transfer, "the transfer made is the one added")
        XCTAssertEqual(core.activity, .attempting(transfer))
        XCTAssertTrue(core.transfer === transfer)
        XCTAssertTrue(core.isCurrent(transfer))
        XCTAssertFalse(core.isCurrent(makeTransfer()), "another transfer is not the attempt's")
        XCTAssertTrue(core.isExecuting)
    }

    func testThatARunFinishesOnlyAfterTheTerminalCallback() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 200)))), ["finishAttempt(finished)"])
        XCTAssertEqual(names(core.handle(.completed(.finished))), ["deliverTerminal(finished)"])
        XCTAssertEqual(core.phase, .completing)
        XCTAssertTrue(core.isComplete)
        XCTAssertTrue(core.isExecuting, "still executing until the callback ran")
        XCTAssertFalse(core.isFinished)
        XCTAssertFalse(core.hasDeliveredTerminal)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.hasDeliveredTerminal)
        XCTAssertTrue(core.isFinished)
        XCTAssertFalse(core.isExecuting)
        XCTAssertEqual(core.phase, .finished)
        XCTAssertNil(core.error)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), [], "finished once")
    }

    func testThatABuiltBodyIsRememberedForTheAttemptsAfterTheFirst() {
        var core = started()
        XCTAssertFalse(core.hasBuiltBody)
        XCTAssertEqual(names(core.handle(.bodyBuilt)), [])
        XCTAssertTrue(core.hasBuiltBody)
        XCTAssertEqual(core.activity, .preparing, "building the body is part of preparing")
    }

    func testThatASecondStartDoesNothing() {
        var core = started()
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [])
        XCTAssertEqual(core.attempt.number, 1)
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatAStartOfACancelledOperationBeginsNothing() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.start(mayBegin: false))), [])
        XCTAssertEqual(core.phase, .idle)
        XCTAssertTrue(core.hasStarted)
        XCTAssertFalse(core.isExecuting)
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [], "started once")
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatAQueuedRequestStartedBeforeItsSlotBeginsOnlyWithTheSlot() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.membership(.joinedQueue))), ["proceed"])
        XCTAssertTrue(core.isWaitingInQueue)
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [], "the OperationQueue started it; no slot yet")
        XCTAssertTrue(core.hasStarted)
        XCTAssertFalse(core.isExecuting, "waiting for a slot is not executing")
        XCTAssertEqual(names(core.handle(.slotGranted)), ["beginAttempt"], "the slot begins the first attempt")
        XCTAssertEqual(names(core.handle(.slotGranted)), [], "once")
        XCTAssertFalse(core.isWaitingInQueue)
        XCTAssertTrue(core.isExecuting)
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(names(core.handle(.completed(.finished))), ["deliverTerminal(finished)"])
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatASlotBeforeTheOperationStartWaitsForTheStartToFinish() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.slotGranted)), ["beginAttempt"])
        XCTAssertEqual(core.phase, .executing)
        XCTAssertEqual(names(core.handle(.completed(.finished))), ["deliverTerminal(finished)"])
        XCTAssertEqual(names(core.handle(.terminalDelivered)), [], "not started by its OperationQueue yet")
        XCTAssertFalse(core.isFinished)
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), ["postFinished"], "the late start finishes it")
        XCTAssertTrue(core.isFinished)
    }

    func testThatAProbeIsNoWaitingOperationAndTellsItsQueueNothing() {
        let target = HTTPRequest(url: here)
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.membership(.becameProbe(target)))), [])
        XCTAssertTrue(core.isProbe)
        XCTAssertTrue(core.membership.probeTarget === target)
        XCTAssertFalse(core.membership.notifiesQueue)
        XCTAssertEqual(names(core.handle(.membership(.joinedQueue))), [], "its queue starts it when it has a slot")
        XCTAssertFalse(core.isWaitingInQueue)
        XCTAssertEqual(names(core.handle(.slotGranted)), ["startProbe"], "a probe's slot starts it")
        XCTAssertEqual(core.phase, .idle, "the slot begins nothing by itself")
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), ["markExecuting", "beginAttempt"])
    }

    func testThatAStartAfterBeingPassedOverForDependenciesMakesTheQueueLookAgain() {
        var core = RequestCore()
        _ = core.handle(.membership(.enqueued))
        _ = core.handle(.membership(.joinedQueue))
        XCTAssertEqual(names(core.handle(.membership(.passedOverForDependencies))), [])
        XCTAssertTrue(core.membership.waitsForDependencies)
        XCTAssertEqual(
            names(core.handle(.start(mayBegin: true))), ["lookForWaitingRequests"], "its dependencies are done")
        XCTAssertFalse(core.membership.waitsForDependencies, "the queue looks once")
        XCTAssertTrue(core.isWaitingInQueue, "it still waits for its slot")
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [])
    }

    func testThatADependencyWaitIsTakenOnceAndOnlyWhileWaitingInAQueue() {
        var neverPassedOver = RequestCore()
        _ = neverPassedOver.handle(.membership(.joinedQueue))
        XCTAssertEqual(names(neverPassedOver.handle(.start(mayBegin: true))), [], "never passed over")

        var slotFirst = RequestCore()
        _ = slotFirst.handle(.membership(.joinedQueue))
        _ = slotFirst.handle(.membership(.passedOverForDependencies))
        XCTAssertEqual(names(slotFirst.handle(.slotGranted)), ["beginAttempt"])
        XCTAssertEqual(names(slotFirst.handle(.start(mayBegin: true))), [], "it has a slot already")
        XCTAssertFalse(slotFirst.membership.waitsForDependencies)

        var inNoQueue = RequestCore()
        _ = inNoQueue.handle(.membership(.passedOverForDependencies))
        XCTAssertEqual(
            names(inNoQueue.handle(.start(mayBegin: true))), ["markExecuting", "beginAttempt"],
            "no queue waits: nobody looks again")
        XCTAssertFalse(inNoQueue.membership.waitsForDependencies)
    }

    func testThatARequestIsEnqueuedOnceAndNotAfterItStarted() {
        var core = RequestCore()
        XCTAssertTrue(core.mayEnqueue)
        XCTAssertTrue(core.mayRunSynchronously)
        XCTAssertEqual(names(core.handle(.membership(.enqueued))), ["proceed"])
        XCTAssertTrue(core.membership.isEnqueued)
        XCTAssertTrue(core.membership.isCounted, "counted by its queue")
        XCTAssertFalse(core.mayEnqueue)
        XCTAssertEqual(names(core.handle(.membership(.enqueued))), [], "an operation joins one queue once")
        XCTAssertFalse(core.mayRunSynchronously, "nor runs synchronously")

        var started = started()
        XCTAssertFalse(started.mayEnqueue)
        XCTAssertFalse(started.mayRunSynchronously)
        XCTAssertEqual(names(started.handle(.membership(.enqueued))), [])
        XCTAssertFalse(started.membership.isEnqueued)
    }

    func testThatARequestCancelledBeforeItJoinsIsOnlyFinishedByItsQueue() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertEqual(names(core.handle(.membership(.enqueued))), ["proceed"])
        XCTAssertFalse(core.membership.isCounted, "not counted")
        XCTAssertEqual(names(core.handle(.membership(.joinedQueue))), [], "it waits for no slot")
        XCTAssertFalse(core.isWaitingInQueue)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), [])
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), ["postFinished"], "its queue's start finishes it")
        XCTAssertTrue(core.isFinished)
    }

    func testThatARequestThatStartedCannotJoinAQueue() {
        var core = started()
        XCTAssertEqual(names(core.handle(.membership(.joinedQueue))), [])
        XCTAssertFalse(core.isWaitingInQueue)
        XCTAssertEqual(core.phase, .executing)
        XCTAssertTrue(core.isExecuting)
    }

    func testThatClearedDelegatesAndAnUnreachableHostAreRemembered() {
        var core = RequestCore()
        XCTAssertTrue(core.membership.notifiesQueue)
        XCTAssertEqual(names(core.handle(.membership(.delegatesCleared))), [])
        XCTAssertFalse(core.membership.notifiesQueue)
        XCTAssertTrue(core.membership.isCounted, "the queue still counts it")

        var unreachable = checkingReachability()
        XCTAssertFalse(unreachable.membership.endedUnreachable)
        _ = unreachable.handle(.reachabilityCheckFound(.unreachableHandedOver(refused)))
        XCTAssertTrue(unreachable.membership.endedUnreachable)
    }

    func testThatCancelBeforeStartDeliversThenFinishesWhenStarted() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertTrue(core.isCancelled)
        XCTAssertFalse(core.isExecuting, "never started")
        XCTAssertEqual(names(core.handle(.terminalDelivered)), [], "not started: no isFinished yet")
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatStartingWhileTheCancelCallbackIsPendingWaitsForIt() {
        var core = RequestCore()
        _ = core.handle(.cancel(cancelled))
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [])
        XCTAssertTrue(core.isExecuting, "started, and its failure is on its way")
        XCTAssertFalse(core.isFinished)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatCompletionAfterFinishIsIgnored() {
        var core = started()
        _ = core.handle(.completed(.failed(refused)))
        _ = core.handle(.terminalDelivered)
        XCTAssertTrue(core.isFinished)
        XCTAssertEqual(names(core.handle(.completed(.finished))), [])
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), [])
        XCTAssertEqual(names(core.handle(.start(mayBegin: true))), [])
        XCTAssertEqual(names(core.handle(.slotGranted)), [])
        XCTAssertEqual(core.error?.type, .connectionFailure, "the first decision stands")
        XCTAssertFalse(core.isCancelled)
    }

    func testThatAnOutcomeDecidedWhileSettingUpAnAttemptLetsNoTransferIn() {
        var core = started()
        let badInput = HTTPRequestError(type: .internalErrorWhileBuildingRequest, message: "a header holds a CR")
        XCTAssertEqual(
            names(core.handle(.completed(.failed(badInput)))),
            ["deliverTerminal(failed: internalErrorWhileBuildingRequest)"])
        let late = makeTransfer()
        XCTAssertEqual(names(core.handle(.transferMade(late))), [], "the transfer never reaches the engine")
        XCTAssertNil(core.transfer)
        XCTAssertEqual(names(core.handle(.transferEnded(late, AttemptReport(status: 200)))), [])
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), [])
        XCTAssertEqual(core.error?.type, .internalErrorWhileBuildingRequest)
    }

    /// The old machine let go of the transfer when the request completed mid-attempt, so the
    /// transfer's later end was stale. Whatever the core does with a transfer still with the
    /// engine, the request's end goes out once.
    func testThatAnOutcomeDecidedMidAttemptIsDeliveredOnce() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        let badInput = HTTPRequestError(type: .internalErrorWhileBuildingRequest, message: "a body file went away")
        var delivered = names(core.handle(.completed(.failed(badInput))))
        XCTAssertFalse(core.isCurrent(transfer), "nothing more of the transfer is taken")
        delivered += names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled))))
        let deliveries = delivered.filter {
            $0.hasPrefix("deliverTerminal") || $0.hasPrefix("discardPartialDownloadThenDeliverFailure")
        }
        XCTAssertEqual(
            deliveries.count, 1,
            "one terminal delivery, not one for the completion and another for the transfer's end: \(delivered)")
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled)))), [])
        XCTAssertEqual(core.error?.type, .internalErrorWhileBuildingRequest)
    }

    func testThatOnlyAnExecutingRequestWithNothingUnderWayIsStuck() {
        var core = RequestCore()
        XCTAssertFalse(core.isStuck, "idle")
        _ = core.handle(.start(mayBegin: true))
        XCTAssertTrue(core.isStuck, "preparing, with no transfer made")
        let first = makeTransfer()
        _ = core.handle(.transferMade(first))
        XCTAssertFalse(core.isStuck, "the transfer is with the engine")
        _ = core.handle(.transferEnded(first, AttemptReport(failure: refused, queueWatchesReachability: true)))
        XCTAssertFalse(core.isStuck, "checking the host")
        _ = core.handle(.reachabilityCheckFound(.unreachableHeld))
        XCTAssertFalse(core.isStuck, "held")
        _ = core.handle(.hostReachableAgain)
        XCTAssertTrue(core.isStuck, "the next attempt is being set up")
        let second = makeTransfer()
        _ = core.handle(.transferMade(second))
        _ = core.handle(.transferEnded(second, AttemptReport(status: 302, location: "/next")))
        XCTAssertTrue(core.isStuck, "ended, and nothing decided yet")
        _ = core.handle(.redirectReceived(status: 302, next: next))
        XCTAssertFalse(core.isStuck, "awaiting a decision")
        _ = core.handle(.redirectHopReached(hop(302, attempt: core.attempt.number)))
        _ = core.handle(.redirectFollowed)
        let third = makeTransfer()
        _ = core.handle(.transferMade(third))
        _ = core.handle(.transferEnded(third, AttemptReport(status: 401)))
        _ = core.handle(.credentialsAwaited(proxy: false, decider: nil))
        XCTAssertFalse(core.isStuck, "awaiting credentials")
        _ = core.handle(.credentialsDecided(.supplied(refusedBefore: false)))
        let fourth = makeTransfer()
        _ = core.handle(.transferMade(fourth))
        _ = core.handle(.transferEnded(fourth, AttemptReport(status: 200)))
        XCTAssertEqual(names(core.handle(.finishing)), ["proceed"])
        XCTAssertEqual(core.activity, .finishing)
        XCTAssertFalse(core.isStuck, "finishing")
        XCTAssertEqual(
            names(core.handle(.completed(.finished))), ["deliverTerminal(finished)"], "finishing ends in completing")
        XCTAssertFalse(core.isStuck)
    }

    // MARK: - An attempt's end

    func testThatA200EndsTheAttemptFinished() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 200)))), ["finishAttempt(finished)"])
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertNil(core.transfer)
        XCTAssertFalse(core.isComplete, "the request decides its end once the attempt's work is done")
        XCTAssertTrue(core.takeEndedTransfer() === transfer, "the ended transfer waits to be freed")
        XCTAssertNil(core.takeEndedTransfer(), "once")
    }

    func testThatAFailureEndsTheAttemptFailed() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(failure: refused)))),
            ["finishAttempt(failed: connectionFailure)"], "no queue watches reachability: the failure stands")
        XCTAssertEqual(core.activity, .preparing)

        let timedOutTransfer = makeTransfer()
        var noRetries = attempting(timedOutTransfer)
        XCTAssertEqual(
            names(noRetries.handle(.transferEnded(timedOutTransfer, AttemptReport(failure: timedOut)))),
            ["finishAttempt(failed: requestTimedOut)"], "no retry on timeout by default")
        XCTAssertEqual(noRetries.timeoutRetries, 0)
    }

    // MARK: - A reviewed response (S3Request)

    func testThatAReviewingRequestsResponseIsReviewedBeforeItFinishes() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 500, reviewsResponse: true)))),
            ["reviewResponse"])
        XCTAssertEqual(core.activity, .reviewingResponse)
        XCTAssertEqual(names(core.handle(.responseReviewed(.accept))), ["finishAttempt(finished)"])
        XCTAssertEqual(names(core.handle(.responseReviewed(.accept))), [], "a second verdict is stale")
    }

    func testThatAReviewThatFailsTheResponseFailsTheRequestWithItsError() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 404, reviewsResponse: true)))
        let error = HTTPRequestError(type: .serviceError, message: "NoSuchKey")
        XCTAssertEqual(names(core.handle(.responseReviewed(.fail(error)))), ["finishAttempt(failed: serviceError)"])
    }

    func testThatAReviewAskingForARetryWaitsThenBeginsAServiceRetry() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 503, reviewsResponse: true)))
        XCTAssertEqual(names(core.handle(.responseReviewed(.retry(after: 0.4)))), ["retryAfter(0.4)"])
        XCTAssertEqual(core.activity, .waitingToRetry)
        XCTAssertEqual(core.attempt.number, 1, "no attempt until the pause is over")
        XCTAssertEqual(names(core.handle(.retryDelayElapsed)), ["beginAttempt"])
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .serviceRetry))
        XCTAssertEqual(names(core.handle(.retryDelayElapsed)), [], "the pause ends once")
    }

    func testThatACancelDuringARetryPauseEndsTheRequestAndThePauseEndsNothing() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 503, reviewsResponse: true)))
        _ = core.handle(.responseReviewed(.retry(after: 1)))
        XCTAssertEqual(
            names(core.handle(.cancel(HTTPRequestError(type: .requestCancelled, message: "cancelled")))),
            ["leaveQueueWaitingList", "discardPartialDownloadThenDeliverFailure(requestCancelled)"])
        XCTAssertEqual(names(core.handle(.retryDelayElapsed)), [])
        XCTAssertEqual(core.attempt.number, 1)
    }

    func testThatACancelDuringAReviewMakesItsVerdictStale() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 200, reviewsResponse: true)))
        _ = core.handle(.cancel(HTTPRequestError(type: .requestCancelled, message: "cancelled")))
        XCTAssertEqual(names(core.handle(.responseReviewed(.accept))), [])
        XCTAssertEqual(core.error?.type, .requestCancelled)
    }

    func testThatAFailedTransferIsNotReviewed() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(failure: refused, reviewsResponse: true)))),
            ["finishAttempt(failed: connectionFailure)"])
    }

    func testThatATimeoutIsRetriedUpToTheLimitThenFails() {
        var core = started()
        let report = AttemptReport(failure: timedOut, timeoutRetryLimit: 2)
        for retry in 1...2 {
            let transfer = makeTransfer()
            _ = core.handle(.transferMade(transfer))
            XCTAssertEqual(names(core.handle(.transferEnded(transfer, report))), ["beginAttempt"], "retry \(retry)")
            XCTAssertEqual(core.timeoutRetries, retry)
            XCTAssertEqual(core.attempt, RequestCore.Attempt(number: retry + 1, kind: .timeoutRetry))
            XCTAssertEqual(core.activity, .preparing)
        }
        let third = makeTransfer()
        _ = core.handle(.transferMade(third))
        XCTAssertEqual(
            names(core.handle(.transferEnded(third, report))), ["finishAttempt(failed: requestTimedOut)"],
            "the retries are used up")
        XCTAssertEqual(core.timeoutRetries, 2)
        XCTAssertEqual(core.attempt.number, 3)
    }

    func testThatAnUnreachableProxyWithAnotherPACChoiceTriesIt() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        let report = AttemptReport(failure: refused, proxyUnreachable: true, hasAnotherProxy: true)
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, report))), ["takeNextProxy", "beginAttempt"])
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .nextProxy))
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.timeoutRetries, 0)
    }

    func testThatAnUnreachableProxyWithoutAnotherChoiceFails() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        let report = AttemptReport(failure: refused, proxyUnreachable: true, hasAnotherProxy: false)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, report))), ["finishAttempt(failed: connectionFailure)"])
        XCTAssertEqual(core.attempt.number, 1)
    }

    func testThatThePACFilesNextProxyBeatsATimeoutRetry() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        let report = AttemptReport(
            failure: timedOut, proxyUnreachable: true, hasAnotherProxy: true, timeoutRetryLimit: 2)
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, report))), ["takeNextProxy", "beginAttempt"])
        XCTAssertEqual(core.attempt.kind, .nextProxy)
        XCTAssertEqual(core.timeoutRetries, 0, "no timeout retry is spent")
    }

    func testThatAConnectionFailureInAQueueWatchingReachabilityIsChecked() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(
                core.handle(.transferEnded(transfer, AttemptReport(failure: refused, queueWatchesReachability: true)))),
            ["checkReachability(connectionFailure)"])
        XCTAssertEqual(core.activity, .checkingReachability)

        let timedOutTransfer = makeTransfer()
        var timeout = attempting(timedOutTransfer)
        XCTAssertEqual(
            names(
                timeout.handle(
                    .transferEnded(timedOutTransfer, AttemptReport(failure: timedOut, queueWatchesReachability: true)))),
            ["finishAttempt(failed: requestTimedOut)"], "only a connection failure is the host's to explain")
    }

    func testThatAReachableHostLetsTheFailureStand() {
        var core = checkingReachability()
        XCTAssertEqual(
            names(core.handle(.reachabilityCheckFound(.reachable(refused)))),
            ["finishAttempt(failed: connectionFailure)"])
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertFalse(core.membership.endedUnreachable)
    }

    func testThatAnUnreachableHostHandedOverFailsToTheQueuesDelegate() {
        var core = checkingReachability()
        XCTAssertEqual(
            names(core.handle(.reachabilityCheckFound(.unreachableHandedOver(refused)))),
            ["finishAttempt(failed: connectionFailure)"])
        XCTAssertTrue(core.membership.endedUnreachable)
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatAHeldRequestBeginsAgainWhenTheHostReturns() {
        var core = checkingReachability()
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), ["proceed"])
        XCTAssertEqual(core.activity, .heldForReachability)
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), ["beginAttempt"])
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .afterHostReturned))
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatAHeldRequestRunsAgainOnlyIfStillHeld() {
        var core = started()
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), [], "not held")
        core = held()
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), [], "held once")
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), ["beginAttempt"])
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), [], "released once")
        XCTAssertEqual(core.attempt.number, 2)

        core = held()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), [], "a cancelled request does not run again")
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), [], "nor is it held")
        XCTAssertEqual(core.attempt.number, 1)
    }

    func testThatAReachabilityFindingWhenNotCheckingDoesNothing() {
        var core = started()
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.reachable(refused)))), [])
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHandedOver(refused)))), [])
        XCTAssertFalse(core.membership.endedUnreachable)
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), [])
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatALateEventFromAnEndedTransferIsStale() {
        var core = started()
        let first = makeTransfer()
        _ = core.handle(.transferMade(first))
        XCTAssertTrue(core.isCurrent(first))
        let retry = AttemptReport(failure: timedOut, timeoutRetryLimit: 1)
        XCTAssertEqual(names(core.handle(.transferEnded(first, retry))), ["beginAttempt"])
        XCTAssertFalse(core.isCurrent(first), "ended")
        XCTAssertEqual(names(core.handle(.transferEnded(first, retry))), [], "a second end of the same transfer")
        let second = makeTransfer()
        _ = core.handle(.transferMade(second))
        XCTAssertEqual(
            names(core.handle(.transferEnded(first, AttemptReport(status: 200)))), [],
            "the first attempt's late end does not end the second")
        XCTAssertTrue(core.isCurrent(second))
        XCTAssertEqual(core.activity, .attempting(second))
        XCTAssertEqual(
            names(core.handle(.transferEnded(second, AttemptReport(status: 200)))), ["finishAttempt(finished)"])
        XCTAssertTrue(core.takeEndedTransfer() === second, "the last ended transfer waits to be freed")
        XCTAssertNil(core.takeEndedTransfer(), "once")
    }

    func testThatATransfersEndReportedTwiceIsTakenOnce() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 200)))), ["finishAttempt(finished)"])
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, AttemptReport(status: 200)))), [])
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, AttemptReport(failure: refused)))), [])
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatAnEndWithoutATransferDoesNothing() {
        var core = started()
        XCTAssertEqual(names(core.handle(.transferEnded(makeTransfer(), AttemptReport(status: 200)))), [])
        var idle = RequestCore()
        XCTAssertEqual(
            names(idle.handle(.transferMade(makeTransfer()))), [], "not begun: no transfer goes to the engine")
        XCTAssertNil(idle.transfer)
    }

    func testThatA304WhileRevalidatingServesTheStoredCopy() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 304, isRevalidating: true)))),
            ["serveNotModified"])
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatA304WhileNotRevalidatingIsTheAnswer() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 304, isRevalidating: false)))),
            ["finishAttempt(finished)"])
    }

    func testThatA401AnswersTheServersChallenge() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 401)))),
            ["rememberCredentialsThenAnswerChallenge(proxy: false)"])
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatA407AnswersTheProxysChallenge() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 407, presentsCredentials: true)))),
            ["rememberCredentialsThenAnswerChallenge(proxy: true)"], "a challenge, whatever was presented")
    }

    func testThatA200PresentingCredentialsRemembersThemThenFinishes() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 200, presentsCredentials: true)))),
            ["rememberCredentialsThenFinish"])
    }

    func testThatAFailureBeatsTheRedirectItsHeadAnnounced() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.headReceived(transfer, followsRedirect: true))
        XCTAssertEqual(
            names(
                core.handle(.transferEnded(transfer, AttemptReport(failure: refused, status: 302, location: "/next")))),
            ["finishAttempt(failed: connectionFailure)"], "the redirect's body never arrived")
    }

    func testThatAttemptsAreNumberedAndSayWhyTheyAreMade() {
        var core = started()
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 1, kind: .first))
        XCTAssertEqual(redirectOnce(&core), [followed(302)])
        XCTAssertEqual(names(core.handle(.redirectFollowed)), ["beginAttempt"])
        XCTAssertEqual(
            core.attempt, RequestCore.Attempt(number: 2, kind: .redirect), "a new hop follows no redirect yet")
        XCTAssertFalse(core.attempt.followsRedirect)
        let timeout = makeTransfer()
        _ = core.handle(.transferMade(timeout))
        _ = core.handle(.transferEnded(timeout, AttemptReport(failure: timedOut, timeoutRetryLimit: 1)))
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 3, kind: .timeoutRetry))
        let challenged = makeTransfer()
        _ = core.handle(.transferMade(challenged))
        _ = core.handle(.transferEnded(challenged, AttemptReport(status: 407)))
        _ = core.handle(.credentialsFound(proxy: true))
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 4, kind: .authenticationRetry(proxy: true)))
        let unreachable = makeTransfer()
        _ = core.handle(.transferMade(unreachable))
        _ = core.handle(.transferEnded(unreachable, AttemptReport(failure: refused, queueWatchesReachability: true)))
        _ = core.handle(.reachabilityCheckFound(.unreachableHeld))
        _ = core.handle(.hostReachableAgain)
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 5, kind: .afterHostReturned))
        let noProxy = makeTransfer()
        _ = core.handle(.transferMade(noProxy))
        _ = core.handle(
            .transferEnded(noProxy, AttemptReport(failure: refused, proxyUnreachable: true, hasAnotherProxy: true)))
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 6, kind: .nextProxy))

        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: false))), [], "no retry after a cancel")
        XCTAssertEqual(names(core.handle(.redirectFollowed)), [], "nor another hop")
        XCTAssertEqual(names(core.handle(.hostReachableAgain)), [])
        XCTAssertEqual(core.attempt.number, 6)
        XCTAssertEqual(core.authenticationRetries, 0)
    }

    // MARK: - Redirects

    func testThatAFollowedRedirectsEndStoresTheHopThenFollows() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertFalse(core.attempt.followsRedirect)
        XCTAssertEqual(names(core.handle(.headReceived(transfer, followsRedirect: true))), [])
        XCTAssertTrue(core.attempt.followsRedirect)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 302, location: "/next")))),
            ["storeRedirectHopThenFollow(/next, 302)"])
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.redirectCount, 0, "counted once the hop's callbacks have run")
    }

    func testThatARedirectNotFollowedIsTheAnswer() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.headReceived(transfer, followsRedirect: false))
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 302, location: "/next")))),
            ["finishAttempt(finished)"], "shouldRedirect false, or no Location")
    }

    func testThatAReceivedRedirectWaitsForItsHopsCallbacks() {
        var core = started()
        XCTAssertEqual(names(core.handle(.redirectReceived(status: 303, next: next))), [decide(303, attempt: 1)])
        XCTAssertEqual(core.activity, .awaitingRedirectDecision(RequestCore.RedirectWait(status: 303, next: next)))
        XCTAssertEqual(core.awaitedRedirectStatus, 303)
        XCTAssertFalse(core.waitsForDecider, "nobody was asked yet")
        XCTAssertFalse(core.isStuck)
        XCTAssertEqual(core.redirectCount, 0)
        XCTAssertEqual(names(core.handle(.redirectReceived(status: 302, next: elsewhere))), [], "one hop at a time")
        XCTAssertEqual(core.awaitedRedirectStatus, 303)
    }

    func testThatAHopNobodyAsksAboutIsCountedAndFollowed() {
        var core = started()
        _ = core.handle(.redirectReceived(status: 307, next: next))
        XCTAssertEqual(names(core.handle(.redirectHopReached(hop(307, attempt: 1)))), [followed(307)])
        XCTAssertEqual(core.redirectCount, 1)
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertNil(core.awaitedRedirectStatus)
        XCTAssertEqual(names(core.handle(.redirectHopReached(hop(307, attempt: 1)))), [], "a hop is decided once")
        XCTAssertEqual(core.redirectCount, 1)
    }

    func testThatAFollowedRedirectBeginsTheNextHopsAttempt() {
        var core = started()
        XCTAssertEqual(redirectOnce(&core), [followed(302)])
        XCTAssertEqual(names(core.handle(.redirectFollowed)), ["beginAttempt"])
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .redirect, followsRedirect: false))
        XCTAssertEqual(core.activity, .preparing)
        let transfer = makeTransfer()
        XCTAssertEqual(names(core.handle(.transferMade(transfer))), ["addToEngine"])
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 200)))), ["finishAttempt(finished)"])
        XCTAssertEqual(core.redirectCount, 1)
    }

    func testThatTheSixthRedirectIsOneTooManyByDefault() {
        var core = started()
        for count in 1...5 {
            XCTAssertEqual(redirectOnce(&core), [followed(302)], "hop \(count)")
            XCTAssertEqual(core.redirectCount, count)
            XCTAssertEqual(names(core.handle(.redirectFollowed)), ["beginAttempt"])
            XCTAssertEqual(core.attempt, RequestCore.Attempt(number: count + 1, kind: .redirect))
        }
        let sixth = core.handle(.redirectHopReached(hopAfterRedirect(&core)))
        XCTAssertEqual(names(sixth), ["finishAttempt(failed: tooMuchRedirection)"])
        XCTAssertEqual(failure(in: sixth)?.message, "The request redirected more than 5 times")
        XCTAssertEqual(failure(in: sixth)?.url, here, "the URL that answered with the redirect")
        XCTAssertEqual(core.redirectCount, 6)
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.attempt.number, 6, "no seventh attempt")
    }

    func testThatMaxRedirectsZeroFailsTheFirstHop() {
        var core = started()
        let actions = core.handle(.redirectHopReached(hopAfterRedirect(&core, policy: RedirectPolicy(maxRedirects: 0))))
        XCTAssertEqual(names(actions), ["finishAttempt(failed: tooMuchRedirection)"])
        XCTAssertEqual(
            failure(in: actions)?.message,
            "The server redirected the request, which follows no redirects (maxRedirects is 0)")
        XCTAssertEqual(core.redirectCount, 1)
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatTheLimitIsCheckedBeforeAnyoneIsAsked() {
        var core = started()
        let hop = hopAfterRedirect(&core, policy: RedirectPolicy(maxRedirects: 0), asks: true)
        XCTAssertEqual(names(core.handle(.redirectHopReached(hop))), ["finishAttempt(failed: tooMuchRedirection)"])
        XCTAssertNil(core.awaitedRedirectStatus, "nobody waits to be asked")
    }

    func testThatARedirectDecisionIsAwaitedOnceAndTakenOnce() {
        var core = started()
        XCTAssertEqual(
            names(core.handle(.redirectDecided(elsewhere))), [], "nothing awaited: a stray redirect(to:) does nothing")
        _ = core.handle(.redirectReceived(status: 303, next: next))
        XCTAssertEqual(
            names(core.handle(.redirectHopReached(hop(303, attempt: 1, asks: true)))), ["askWhereToRedirect(\(next))"])
        XCTAssertEqual(core.redirectCount, 1, "counted before asking")
        XCTAssertEqual(core.awaitedRedirectStatus, 303, "the request keeps waiting")
        XCTAssertFalse(core.isStuck)
        let decider = Decider()
        XCTAssertEqual(names(core.handle(.redirectDeciderAsked(decider))), [])
        XCTAssertTrue(core.waitsForDecider)
        XCTAssertEqual(
            names(core.handle(.redirectDecided(elsewhere))), ["followRedirect(\(elsewhere), 303)"],
            "where the decider says, under the server's status")
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertFalse(core.waitsForDecider)
        XCTAssertEqual(names(core.handle(.redirectDecided(next))), [], "a second redirect(to:) does nothing")
        XCTAssertEqual(core.redirectCount, 1)
        withExtendedLifetime(decider) {}
    }

    func testThatARedirectDecisionWithoutADeciderRecordedIsTaken() {
        var core = started()
        _ = core.handle(.redirectReceived(status: 301, next: next))
        _ = core.handle(.redirectHopReached(hop(301, attempt: 1, asks: true)))
        XCTAssertEqual(names(core.handle(.deciderGone)), [], "no decider recorded: nothing to find gone")
        XCTAssertEqual(names(core.handle(.redirectDecided(elsewhere))), ["followRedirect(\(elsewhere), 301)"])
    }

    /// `redirect(to:)` may be called from any thread at any time. Between the redirect's end and
    /// the hop's callbacks nobody has been asked, so a call then is as stray as one before: it
    /// must not follow the hop past its count and the limit (here: maxRedirects 0).
    func testThatARedirectToBeforeTheHopsCallbacksRanCannotSkipTheCountOrTheLimit() {
        var core = started()
        let hop = hopAfterRedirect(&core, policy: RedirectPolicy(maxRedirects: 0))
        var actions = names(core.handle(.redirectDecided(elsewhere)))
        actions += names(core.handle(.redirectHopReached(hop)))
        XCTAssertEqual(
            actions, ["finishAttempt(failed: tooMuchRedirection)"], "the stray redirect(to:) followed nothing")
        XCTAssertEqual(core.redirectCount, 1, "the hop was counted")
    }

    func testThatAHopDecisionForAnEarlierAttemptOrAnotherStatusIsStale() {
        var core = started()
        let first = makeTransfer()
        _ = core.handle(.transferMade(first))
        _ = core.handle(.transferEnded(first, AttemptReport(failure: timedOut, timeoutRetryLimit: 1)))
        XCTAssertEqual(core.attempt.number, 2)
        let hop = hopAfterRedirect(&core)
        XCTAssertEqual(hop.pending.attempt, 2, "the hop names the attempt that met it")
        XCTAssertEqual(names(core.handle(.redirectHopReached(self.hop(302, attempt: 1)))), [], "an earlier attempt's")
        XCTAssertEqual(names(core.handle(.redirectHopReached(self.hop(301, attempt: 2)))), [], "another status")
        XCTAssertEqual(core.redirectCount, 0, "neither is counted")
        XCTAssertEqual(core.awaitedRedirectStatus, 302)
        XCTAssertEqual(names(core.handle(.redirectHopReached(hop))), [followed(302)])
        XCTAssertEqual(core.redirectCount, 1)
    }

    func testThatARedirectDeciderStillThereIsWaitedFor() {
        var core = awaitingAskedRedirect()
        let decider = Decider()
        _ = core.handle(.redirectDeciderAsked(decider))
        XCTAssertEqual(names(core.handle(.deciderGone)), [], "it is still there")
        XCTAssertEqual(core.awaitedRedirectStatus, 302)
        XCTAssertTrue(core.waitsForDecider)
        withExtendedLifetime(decider) {}
    }

    func testThatAReleasedRedirectDeciderLetsTheRequestGoWhereTheServerSaid() {
        var core = awaitingAskedRedirect()
        var decider: Decider? = Decider()
        _ = core.handle(.redirectDeciderAsked(decider!))
        XCTAssertTrue(core.waitsForDecider)
        decider = nil
        XCTAssertEqual(names(core.handle(.deciderGone)), [followed(302)], "to the server's Location")
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(names(core.handle(.deciderGone)), [], "once")
        XCTAssertEqual(names(core.handle(.redirectDecided(elsewhere))), [], "an answer after that does nothing")
        XCTAssertEqual(names(core.handle(.redirectFollowed)), ["beginAttempt"])
        XCTAssertEqual(core.attempt.kind, .redirect)
    }

    func testThatADeciderAskedWhenNotAwaitingARedirectIsNotKept() {
        var core = started()
        let decider = Decider()
        XCTAssertEqual(names(core.handle(.redirectDeciderAsked(decider))), [])
        XCTAssertFalse(core.waitsForDecider)
        XCTAssertEqual(core.activity, .preparing)
        withExtendedLifetime(decider) {}
    }

    func testThatAStrayRedirectDecisionDoesNothing() {
        var idle = RequestCore()
        XCTAssertEqual(names(idle.handle(.redirectDecided(elsewhere))), [], "not started")
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(names(core.handle(.redirectDecided(elsewhere))), [], "attempting")
        XCTAssertEqual(core.activity, .attempting(transfer))
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 200)))
        XCTAssertEqual(names(core.handle(.redirectDecided(elsewhere))), [], "working out the end")
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.redirectCount, 0)
    }

    func testThatAStaleHeadLeavesTheAttemptsRedirectAlone() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(names(core.handle(.headReceived(makeTransfer(), followsRedirect: true))), [])
        XCTAssertFalse(core.attempt.followsRedirect, "another transfer's head")
        _ = core.handle(.transferEnded(transfer, AttemptReport(failure: timedOut, timeoutRetryLimit: 1)))
        XCTAssertEqual(names(core.handle(.headReceived(transfer, followsRedirect: true))), [])
        XCTAssertFalse(core.attempt.followsRedirect, "the ended transfer's late head")
        let second = makeTransfer()
        _ = core.handle(.transferMade(second))
        _ = core.handle(.headReceived(second, followsRedirect: true))
        XCTAssertTrue(core.attempt.followsRedirect)
        XCTAssertEqual(
            names(core.handle(.cancel(cancelled))), ["leaveQueueWaitingList", "stopTransfer(requestCancelled)"])
        _ = core.handle(.headReceived(second, followsRedirect: false))
        XCTAssertTrue(core.attempt.followsRedirect, "a head after the cancel is not taken")
    }

    func testThatACancelWhileAwaitingARedirectDecisionStopsNoTransferAndDropsTheDecision() {
        var core = awaitingAskedRedirect()
        let decider = Decider()
        _ = core.handle(.redirectDeciderAsked(decider))
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertNil(core.awaitedRedirectStatus)
        XCTAssertFalse(core.waitsForDecider, "the watch lets it go")
        XCTAssertEqual(
            names(core.handle(.redirectDecided(elsewhere))), [], "a decision after the cancel begins nothing")
        XCTAssertEqual(names(core.handle(.redirectHopReached(hop(302, attempt: 1)))), [])
        XCTAssertEqual(names(core.handle(.deciderGone)), [])
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        withExtendedLifetime(decider) {}
    }

    // MARK: - Credentials

    func testThatFoundServerCredentialsRetryTheAttempt() {
        var core = challenged(status: 401)
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: false))), ["beginAttempt"])
        XCTAssertEqual(core.authenticationRetries, 1)
        XCTAssertEqual(core.proxyAuthenticationRetries, 0)
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .authenticationRetry(proxy: false)))
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatFoundProxyCredentialsCountAsAProxyRetry() {
        var core = challenged(status: 407)
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: true))), ["beginAttempt"])
        XCTAssertEqual(core.proxyAuthenticationRetries, 1)
        XCTAssertEqual(core.authenticationRetries, 0)
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 2, kind: .authenticationRetry(proxy: true)))
    }

    func testThatCredentialsFoundWhileNotPreparingDoNothing() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: false))), [], "the attempt is with the engine")
        XCTAssertEqual(core.authenticationRetries, 0)
        XCTAssertEqual(core.attempt.number, 1)
        var idle = RequestCore()
        XCTAssertEqual(names(idle.handle(.credentialsFound(proxy: true))), [])
        XCTAssertEqual(idle.proxyAuthenticationRetries, 0)
    }

    func testThatAwaitedCredentialsWaitForTheirDecider() {
        var core = challenged(status: 401)
        let decider = Decider()
        XCTAssertEqual(names(core.handle(.credentialsAwaited(proxy: false, decider: decider))), ["proceed"])
        XCTAssertEqual(core.activity, .awaitingCredentials(RequestCore.CredentialsWait(proxy: false)))
        XCTAssertEqual(core.awaitedCredentials, false, "the server's")
        XCTAssertTrue(core.credentialsDecider === decider)
        XCTAssertTrue(core.waitsForDecider)
        XCTAssertFalse(core.isStuck)
        XCTAssertEqual(
            names(core.handle(.credentialsAwaited(proxy: true, decider: nil))), [], "one wait at a time")
        XCTAssertEqual(core.awaitedCredentials, false)
        withExtendedLifetime(decider) {}
    }

    func testThatCredentialsAwaitedFromNoObjectWaitForNoDecider() {
        var core = challenged(status: 407)
        XCTAssertEqual(names(core.handle(.credentialsAwaited(proxy: true, decider: nil))), ["proceed"])
        XCTAssertEqual(core.awaitedCredentials, true, "the proxy's")
        XCTAssertNil(core.credentialsDecider)
        XCTAssertFalse(core.waitsForDecider, "a block, the dialog or another request: nothing to watch")
        XCTAssertEqual(names(core.handle(.deciderGone)), [], "nothing can go")
        XCTAssertEqual(core.awaitedCredentials, true)
    }

    func testThatSuppliedCredentialsRetryTheAttempt() {
        var core = awaitingCredentials(proxy: false)
        XCTAssertEqual(names(core.handle(.credentialsDecided(.supplied(refusedBefore: false)))), ["beginAttempt"])
        XCTAssertEqual(core.authenticationRetries, 1)
        XCTAssertEqual(core.attempt.kind, .authenticationRetry(proxy: false))
        XCTAssertNil(core.awaitedCredentials)
        XCTAssertEqual(core.activity, .preparing)

        var proxy = awaitingCredentials(proxy: true)
        XCTAssertEqual(names(proxy.handle(.credentialsDecided(.supplied(refusedBefore: false)))), ["beginAttempt"])
        XCTAssertEqual(proxy.proxyAuthenticationRetries, 1)
        XCTAssertEqual(proxy.authenticationRetries, 0)
        XCTAssertEqual(proxy.attempt.kind, .authenticationRetry(proxy: true))
    }

    func testThatCredentialsRefusedBeforeAreNotSentAgain() {
        var core = awaitingCredentials(proxy: false)
        XCTAssertEqual(
            names(core.handle(.credentialsDecided(.supplied(refusedBefore: true)))),
            ["failForCredentials(proxy: false, refusedBefore)"])
        XCTAssertEqual(core.authenticationRetries, 0)
        XCTAssertEqual(core.attempt.number, 1)
        XCTAssertEqual(core.activity, .preparing)
    }

    func testThatDeclinedCredentialsFailTheRequest() {
        var core = awaitingCredentials(proxy: true)
        XCTAssertEqual(
            names(core.handle(.credentialsDecided(.declined))), ["failForCredentials(proxy: true, declined)"])
        XCTAssertNil(core.awaitedCredentials)
    }

    func testThatNoCredentialsOnTheTerminalFailTheRequest() {
        var core = awaitingCredentials(proxy: false)
        XCTAssertEqual(
            names(core.handle(.credentialsDecided(.noneOnTerminal))),
            ["failForCredentials(proxy: false, noneOnTerminal)"])
    }

    func testThatAnotherRequestsAnswerMakesTheRequestLookAgain() {
        var core = awaitingCredentials(proxy: true)
        XCTAssertEqual(
            names(core.handle(.credentialsDecided(.anotherRequestAnswered))), ["answerChallenge(proxy: true)"])
        XCTAssertEqual(core.activity, .preparing)
        XCTAssertEqual(core.proxyAuthenticationRetries, 0, "looking is no retry")
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: true))), ["beginAttempt"], "what it found")
        XCTAssertEqual(core.proxyAuthenticationRetries, 1)
    }

    func testThatACredentialsDeciderStillThereIsWaitedFor() {
        var core = awaitingCredentials(proxy: false)
        let decider = Decider()
        XCTAssertEqual(names(core.handle(.credentialsDeciderAsked(decider))), [])
        XCTAssertTrue(core.credentialsDecider === decider)
        XCTAssertTrue(core.waitsForDecider)
        XCTAssertEqual(names(core.handle(.deciderGone)), [])
        XCTAssertEqual(core.awaitedCredentials, false)
        withExtendedLifetime(decider) {}
    }

    func testThatAReleasedCredentialsDeciderFailsTheRequest() {
        var core = awaitingCredentials(proxy: false)
        var decider: Decider? = Decider()
        _ = core.handle(.credentialsDeciderAsked(decider!))
        XCTAssertTrue(core.waitsForDecider)
        decider = nil
        XCTAssertNil(core.credentialsDecider, "held weakly")
        XCTAssertEqual(names(core.handle(.deciderGone)), ["failForCredentials(proxy: false, deciderGone)"])
        XCTAssertNil(core.awaitedCredentials)
        XCTAssertFalse(core.waitsForDecider)
        XCTAssertEqual(names(core.handle(.deciderGone)), [], "once")
        XCTAssertEqual(names(core.handle(.credentialsDecided(.supplied(refusedBefore: false)))), [], "too late")
    }

    func testThatAReleasedProxyCredentialsDeciderNamesTheProxy() {
        var decider: Decider? = Decider()
        var core = challenged(status: 407)
        _ = core.handle(.credentialsAwaited(proxy: true, decider: decider))
        decider = nil
        XCTAssertEqual(names(core.handle(.deciderGone)), ["failForCredentials(proxy: true, deciderGone)"])
    }

    func testThatACredentialsDecisionWhenNotWaitingDoesNothing() {
        var core = challenged(status: 401)
        XCTAssertEqual(names(core.handle(.credentialsDecided(.supplied(refusedBefore: false)))), [])
        XCTAssertEqual(names(core.handle(.credentialsDecided(.declined))), [])
        XCTAssertEqual(names(core.handle(.credentialsDecided(.anotherRequestAnswered))), [])
        XCTAssertEqual(core.authenticationRetries, 0)
        let decider = Decider()
        XCTAssertEqual(names(core.handle(.credentialsDeciderAsked(decider))), [])
        XCTAssertFalse(core.waitsForDecider, "a decider asked when nothing waits is not kept")
        XCTAssertEqual(core.activity, .preparing)
        withExtendedLifetime(decider) {}
    }

    func testThatTheProxyThenTheServerLadderCountsBothRetries() {
        var core = started()
        let first = makeTransfer()
        _ = core.handle(.transferMade(first))
        XCTAssertEqual(
            names(core.handle(.transferEnded(first, AttemptReport(status: 407)))),
            ["rememberCredentialsThenAnswerChallenge(proxy: true)"])
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: true))), ["beginAttempt"])
        let second = makeTransfer()
        _ = core.handle(.transferMade(second))
        XCTAssertEqual(
            names(core.handle(.transferEnded(second, AttemptReport(status: 401, presentsCredentials: true)))),
            ["rememberCredentialsThenAnswerChallenge(proxy: false)"], "the proxy let it through; the server asks")
        XCTAssertEqual(names(core.handle(.credentialsFound(proxy: false))), ["beginAttempt"])
        let third = makeTransfer()
        _ = core.handle(.transferMade(third))
        XCTAssertEqual(
            names(core.handle(.transferEnded(third, AttemptReport(status: 200, presentsCredentials: true)))),
            ["rememberCredentialsThenFinish"])
        XCTAssertEqual(core.proxyAuthenticationRetries, 1)
        XCTAssertEqual(core.authenticationRetries, 1)
        XCTAssertEqual(core.attempt, RequestCore.Attempt(number: 3, kind: .authenticationRetry(proxy: false)))
    }

    // MARK: - Cancel

    func testThatACancelWhileIdleLeavesTheWaitingListAndDeliversTheFailure() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertEqual(core.phase, .completing)
        XCTAssertTrue(core.isCancelled)
        XCTAssertTrue(core.isComplete)
        XCTAssertEqual(core.error?.type, .requestCancelled)
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), [], "a second cancel does nothing")
    }

    func testThatACancelWhileWaitingForASlotFinishesWithoutBeginning() {
        var core = RequestCore()
        _ = core.handle(.membership(.joinedQueue))
        _ = core.handle(.start(mayBegin: true))
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertFalse(core.isWaitingInQueue)
        XCTAssertEqual(names(core.handle(.slotGranted)), [], "a slot given too late begins nothing")
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatACancelWhilePreparingDeliversAtOnce() {
        var core = started()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers)
        XCTAssertTrue(core.isExecuting, "until its failure was delivered")
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
    }

    func testThatCancelWinsOverALateCompletion() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        let actions = core.handle(.cancel(cancelled))
        XCTAssertEqual(
            names(actions), ["leaveQueueWaitingList", "stopTransfer(requestCancelled)"], "the transfer is stopped")
        XCTAssertTrue(transferOf(actions) === transfer)
        XCTAssertEqual(names(core.handle(.completed(.finished))), [], "the transfer's own ending is ignored")
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), [], "a second cancel does nothing")
        XCTAssertTrue(core.isCancelled)
    }

    /// A cancelled request's failure waits for the engine to report that the stopped transfer
    /// ended; until then the transfer's events are stale, so nothing more of it is recorded.
    func testThatACancelledTransfersEventsAreStaleAndItsEndIsTheCancelsOwn() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(
            names(core.handle(.cancel(cancelled))), ["leaveQueueWaitingList", "stopTransfer(requestCancelled)"])
        XCTAssertFalse(core.isCurrent(transfer), "a head or a chunk after the cancel is not taken")
        XCTAssertTrue(core.transfer === transfer, "kept until the engine says it ended")
        XCTAssertFalse(core.hasDeliveredTerminal)
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled)))),
            ["discardPartialDownloadThenDeliverFailure(requestCancelled)"], "the engine stopped it: deliver now")
        XCTAssertEqual(names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled)))), [], "once")
        XCTAssertNil(core.transfer)
        XCTAssertTrue(core.takeEndedTransfer() === transfer)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
        XCTAssertTrue(core.isFinished)
    }

    func testThatACancelledTransfersEndDeliversTheCancelWhateverItReports() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.cancel(cancelled))
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(failure: timedOut, timeoutRetryLimit: 3)))),
            ["discardPartialDownloadThenDeliverFailure(requestCancelled)"], "no retry, no redirect, no challenge")
        XCTAssertEqual(core.timeoutRetries, 0)
        XCTAssertEqual(core.attempt.number, 1)
    }

    func testThatACancelWhileAwaitingCredentialsStopsWaitingForThePromptFirst() {
        var core = awaitingCredentials(proxy: true)
        XCTAssertEqual(
            names(core.handle(.cancel(cancelled))),
            [
                "stopWaitingForCredentialPrompt", "leaveQueueWaitingList",
                "discardPartialDownloadThenDeliverFailure(requestCancelled)",
            ])
        XCTAssertNil(core.awaitedCredentials)
        XCTAssertEqual(names(core.handle(.credentialsDecided(.supplied(refusedBefore: false)))), [])
        XCTAssertEqual(core.proxyAuthenticationRetries, 0)
    }

    func testThatACancelWhileCompletingChangesNothing() {
        var core = finishing()
        _ = core.handle(.completed(.finished))
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), [], "the first decision wins")
        XCTAssertFalse(core.isCancelled)
        XCTAssertNil(core.error)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
    }

    /// A cancel in every state ends the request, or does nothing once it has ended; it stops a
    /// transfer only when one is with the engine; after it, only the stopped transfer's end and
    /// the terminal callback lead anywhere.
    func testThatACancelInEachStateEndsTheRequestOnce() {
        let transfer = makeTransfer()
        let stops = ["leaveQueueWaitingList", "stopTransfer(requestCancelled)"]
        var states: [(name: String, core: RequestCore, expected: [String], started: Bool)] = []
        var idle = RequestCore()
        states.append(("idle", idle, cancelDelivers, false))
        _ = idle.handle(.membership(.joinedQueue))
        states.append(("waiting in a queue", idle, cancelDelivers, false))
        _ = idle.handle(.start(mayBegin: true))
        states.append(("waiting in a started queue", idle, cancelDelivers, true))
        states.append(("preparing", started(), cancelDelivers, true))
        states.append(("attempting", attempting(transfer), stops, true))
        states.append(("awaiting a redirect decision", awaitingAskedRedirect(), cancelDelivers, true))
        states.append(
            (
                "awaiting credentials", awaitingCredentials(proxy: false),
                ["stopWaitingForCredentialPrompt"] + cancelDelivers, true
            ))
        states.append(("checking reachability", checkingReachability(), cancelDelivers, true))
        states.append(("held for reachability", held(), cancelDelivers, true))
        states.append(("finishing", finishing(), cancelDelivers, true))
        states.append(("serving from the cache", servingFromCache(), cancelDelivers, true))
        var completing = finishing()
        _ = completing.handle(.completed(.finished))
        states.append(("completing", completing, [], true))
        var finished = completing
        _ = finished.handle(.terminalDelivered)
        XCTAssertTrue(finished.isFinished)
        states.append(("finished", finished, [], true))

        for (name, state, expected, started) in states {
            var core = state
            let actions = core.handle(.cancel(cancelled))
            XCTAssertEqual(names(actions), expected, name)
            XCTAssertEqual(names(core.handle(.cancel(cancelled))), [], "\(name): a second cancel does nothing")
            XCTAssertTrue(core.isComplete, name)
            XCTAssertEqual(names(core.handle(.slotGranted)), [], "\(name): nothing begins after a cancel")
            XCTAssertEqual(names(core.handle(.transferMade(makeTransfer()))), [], "\(name): no transfer after a cancel")
            XCTAssertEqual(names(core.handle(.completed(.finished))), [], name)
            XCTAssertEqual(names(core.handle(.credentialsFound(proxy: false))), [], name)
            XCTAssertEqual(names(core.handle(.hostReachableAgain)), [], name)
            XCTAssertEqual(names(core.handle(.redirectDecided(elsewhere))), [], name)
            XCTAssertEqual(names(core.handle(.credentialsDecided(.declined))), [], name)
            XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), [], name)
            XCTAssertEqual(names(core.handle(.finishing)), [], name)
            XCTAssertEqual(names(core.handle(.servingFromCache)), [], name)
            XCTAssertEqual(names(core.handle(.redirectReceived(status: 302, next: next))), [], name)
            guard !expected.isEmpty else {
                XCTAssertFalse(core.isCancelled, "\(name): it had ended already")
                continue
            }
            XCTAssertTrue(core.isCancelled, name)
            XCTAssertEqual(core.error?.type, .requestCancelled, name)
            XCTAssertEqual(core.phase, .completing, name)
            if case .stopTransfer(let stopped, _)? = Array(actions).last {
                XCTAssertTrue(stopped === transfer, name)
                XCTAssertEqual(
                    names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled)))),
                    ["discardPartialDownloadThenDeliverFailure(requestCancelled)"], name)
                XCTAssertEqual(
                    names(core.handle(.transferEnded(transfer, AttemptReport(failure: cancelled)))), [], name)
            }
            XCTAssertEqual(names(core.handle(.terminalDelivered)), started ? ["postFinished"] : [], name)
            XCTAssertEqual(core.isFinished, started, name)
        }
    }

    func testThatALateEndOfAnAttemptAfterACancelChangesNothing() {
        var core = started()
        _ = core.handle(.cancel(cancelled))
        XCTAssertEqual(names(core.handle(.completed(.finished))), [], "the attempt's late ending")
        XCTAssertEqual(names(core.handle(.redirectReceived(status: 301, next: next))), [], "a late redirect")
        XCTAssertEqual(
            names(
                core.handle(
                    .transferEnded(makeTransfer(), AttemptReport(failure: refused, queueWatchesReachability: true)))),
            [], "a late connection failure")
        XCTAssertEqual(names(core.handle(.reachabilityCheckFound(.unreachableHeld))), [])
        XCTAssertEqual(names(core.handle(.slotGranted)), [], "a late slot")
        XCTAssertEqual(names(core.handle(.credentialsAwaited(proxy: false, decider: nil))), [])
        XCTAssertNil(core.awaitedCredentials)
        XCTAssertTrue(core.isCancelled)
    }

    func testThatATransferMadeAfterACancelIsNotKept() {
        var core = started()
        XCTAssertEqual(names(core.handle(.cancel(cancelled))), cancelDelivers, "cancelled while being set up")
        let late = makeTransfer()
        XCTAssertEqual(names(core.handle(.transferMade(late))), [], "the transfer never reaches the engine")
        XCTAssertNil(core.transfer)
        XCTAssertFalse(core.isCurrent(late))
        XCTAssertEqual(names(core.handle(.transferEnded(late, AttemptReport(failure: cancelled)))), [])
    }

    func testThatACancelKeepsItsOwnError() {
        var core = started()
        let failedRest = HTTPRequestError(type: .connectionFailure, message: "the queue failed the rest")
        XCTAssertEqual(
            names(core.handle(.cancel(failedRest))),
            ["leaveQueueWaitingList", "discardPartialDownloadThenDeliverFailure(connectionFailure)"])
        XCTAssertEqual(core.error?.message, "the queue failed the rest")
        XCTAssertFalse(core.isCancelled, "ended, but not by a cancel")
        XCTAssertTrue(core.isComplete)
    }

    // MARK: - The terminal notification

    func testThatTheTerminalNotificationGoesOutOnce() {
        var core = RequestCore()
        XCTAssertEqual(names(core.handle(.terminalNotifying(error: nil))), ["proceed"])
        XCTAssertTrue(core.handle(.terminalNotifying(error: nil)).isEmpty)
        XCTAssertEqual(names(core.handle(.terminalNotifying(error: refused))), [], "not even to fail")
        XCTAssertNil(core.error, "a notification refused changes nothing")
    }

    func testThatASubclassFailingFromRequestFinishedTurnsTheOutcomeIntoItsFailure() {
        var core = finishing()
        XCTAssertEqual(names(core.handle(.completed(.finished))), ["deliverTerminal(finished)"])
        let parsing = HTTPRequestError(type: .unhandledException, message: "the body was no JSON")
        XCTAssertEqual(names(core.handle(.terminalNotifying(error: parsing))), ["proceed"], "failWithError goes first")
        XCTAssertEqual(core.error?.type, .unhandledException)
        XCTAssertEqual(core.error?.message, "the body was no JSON")
        guard case .failed(let error)? = core.outcome else { return XCTFail("\(String(describing: core.outcome))") }
        XCTAssertEqual(error.message, "the body was no JSON")
        XCTAssertEqual(names(core.handle(.terminalNotifying(error: nil))), [], "requestFinished's own notification")
        XCTAssertFalse(core.isCancelled)
        XCTAssertEqual(names(core.handle(.terminalDelivered)), ["postFinished"])
    }

    func testThatANotificationWithoutAnErrorKeepsTheOutcome() {
        var core = finishing()
        _ = core.handle(.completed(.finished))
        XCTAssertEqual(names(core.handle(.terminalNotifying(error: nil))), ["proceed"])
        XCTAssertNil(core.error)
        guard case .finished? = core.outcome else { return XCTFail("\(String(describing: core.outcome))") }
    }

    // MARK: - Finishing and the cache

    func testThatFinishingWorkStartsOnlyWhileWorkingOutTheEnd() {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        XCTAssertEqual(names(core.handle(.finishing)), [], "the transfer is with the engine")
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 200)))
        XCTAssertEqual(names(core.handle(.finishing)), ["proceed"])
        XCTAssertEqual(core.activity, .finishing)
        XCTAssertEqual(names(core.handle(.finishing)), [], "once")
        XCTAssertEqual(names(core.handle(.completed(.failed(refused)))), ["deliverTerminal(failed: connectionFailure)"])
    }

    func testThatTheCacheServesWhilePreparingOrFinishing() {
        var preparing = started()
        XCTAssertEqual(names(preparing.handle(.servingFromCache)), ["proceed"], "fresh, or a dontLoad miss")
        XCTAssertEqual(preparing.activity, .servingFromCache)
        XCTAssertEqual(names(preparing.handle(.servingFromCache)), [], "once")

        var fallback = finishing()
        XCTAssertEqual(names(fallback.handle(.servingFromCache)), ["proceed"], "the fallback after a failed load")
        XCTAssertEqual(fallback.activity, .servingFromCache)

        let transfer = makeTransfer()
        var busy = attempting(transfer)
        XCTAssertEqual(names(busy.handle(.servingFromCache)), [], "the transfer is with the engine")
        var idle = RequestCore()
        XCTAssertEqual(names(idle.handle(.servingFromCache)), [], "not begun")
    }

    // MARK: - RequestActions

    func testThatActionsKeepTheirOrderUpToThree() {
        var actions = RequestActions.none
        actions.append(.stopWaitingForCredentialPrompt)
        actions.append(.leaveQueueWaitingList)
        actions.append(.takeNextProxy)
        XCTAssertEqual(names(actions), ["stopWaitingForCredentialPrompt", "leaveQueueWaitingList", "takeNextProxy"])
        XCTAssertEqual(Array(actions).count, 3)
        var read: [String] = []
        actions.forEach { read.append(names(RequestActions(copy $0)).first ?? "") }
        XCTAssertEqual(read, names(actions), "the driver's forEach reads them in the same order")
        XCTAssertFalse(actions.isEmpty)
    }

    /// The most any event leads to is a cancel's three; the core's own events never exceed it.
    func testThatTheMostActionsAnyEventLeadsToFitTheInlineList() {
        var core = started()
        _ = core.handle(.credentialsAwaited(proxy: false, decider: nil))
        XCTAssertEqual(
            names(core.handle(.cancel(cancelled))),
            [
                "stopWaitingForCredentialPrompt", "leaveQueueWaitingList",
                "discardPartialDownloadThenDeliverFailure(requestCancelled)",
            ])
    }

    func testThatTheInitialisersKeepTheirOrder() {
        XCTAssertEqual(names(RequestActions(.serveNotModified)), ["serveNotModified"])
        XCTAssertEqual(names(RequestActions(.takeNextProxy, .beginAttempt)), ["takeNextProxy", "beginAttempt"])
        var appended = RequestActions(.markExecuting)
        appended.append(.beginAttempt)
        XCTAssertEqual(names(appended), ["markExecuting", "beginAttempt"])
    }

    func testThatNoActionsAreEmptyAndDoNotProceed() {
        let none = RequestActions.none
        XCTAssertTrue(none.isEmpty)
        XCTAssertFalse(none.proceeds)
        XCTAssertEqual(names(none), [])
        XCTAssertTrue(RequestActions().isEmpty)
        var iterator = none.makeIterator()
        XCTAssertNil(iterator.next())
    }

    func testThatOnlyALeadingProceedProceeds() {
        XCTAssertTrue(RequestActions(.proceed).proceeds)
        XCTAssertTrue(RequestActions(.proceed, .beginAttempt).proceeds)
        XCTAssertFalse(RequestActions(.beginAttempt, .proceed).proceeds)
        XCTAssertFalse(RequestActions(.beginAttempt).proceeds)
        XCTAssertFalse(RequestActions(.proceed).isEmpty)
    }

    func testThatAnIteratorRunsOutAfterTheLastAction() {
        var iterator = RequestActions(.startProbe, .postFinished).makeIterator()
        XCTAssertNotNil(iterator.next())
        XCTAssertNotNil(iterator.next())
        XCTAssertNil(iterator.next())
        XCTAssertNil(iterator.next(), "and stays out")
    }

    // MARK: - States

    private func started() -> RequestCore {
        var core = RequestCore()
        _ = core.handle(.start(mayBegin: true))
        return core
    }

    private func attempting(_ transfer: Transfer) -> RequestCore {
        var core = started()
        _ = core.handle(.transferMade(transfer))
        return core
    }

    /// The first attempt ended with a 401 or a 407; no credentials looked for yet.
    private func challenged(status: Int) -> RequestCore {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: status)))
        return core
    }

    private func awaitingCredentials(proxy: Bool) -> RequestCore {
        var core = challenged(status: proxy ? 407 : 401)
        _ = core.handle(.credentialsAwaited(proxy: proxy, decider: nil))
        return core
    }

    /// The first attempt's 302 to `next` was counted, and someone was asked where to go.
    private func awaitingAskedRedirect() -> RequestCore {
        var core = started()
        let hop = hopAfterRedirect(&core, asks: true)
        _ = core.handle(.redirectHopReached(hop))
        return core
    }

    private func checkingReachability() -> RequestCore {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(failure: refused, queueWatchesReachability: true)))
        return core
    }

    private func held() -> RequestCore {
        var core = checkingReachability()
        _ = core.handle(.reachabilityCheckFound(.unreachableHeld))
        return core
    }

    /// The first attempt ended with a 200 and its download is being moved into place.
    private func finishing() -> RequestCore {
        let transfer = makeTransfer()
        var core = attempting(transfer)
        _ = core.handle(.transferEnded(transfer, AttemptReport(status: 200)))
        _ = core.handle(.finishing)
        return core
    }

    private func servingFromCache() -> RequestCore {
        var core = started()
        _ = core.handle(.servingFromCache)
        return core
    }

    // MARK: - Redirect hops

    private func hop(
        _ status: Int, attempt: Int, asks: Bool = false, policy: RedirectPolicy = RedirectPolicy()
    ) -> RedirectHop {
        RedirectHop(
            pending: RedirectHop.Pending(status: status, next: next, attempt: attempt), asks: asks, policy: policy,
            url: here)
    }

    /// Takes a preparing request through an attempt answered by a followed 302 to `next`, up to
    /// the hop's callbacks having run: the hop to decide.
    private func hopAfterRedirect(
        _ core: inout RequestCore, policy: RedirectPolicy = RedirectPolicy(), asks: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) -> RedirectHop {
        let transfer = makeTransfer()
        XCTAssertEqual(names(core.handle(.transferMade(transfer))), ["addToEngine"], file: file, line: line)
        _ = core.handle(.headReceived(transfer, followsRedirect: true))
        XCTAssertEqual(
            names(core.handle(.transferEnded(transfer, AttemptReport(status: 302, location: "/next")))),
            ["storeRedirectHopThenFollow(/next, 302)"], file: file, line: line)
        let actions = core.handle(.redirectReceived(status: 302, next: next))
        XCTAssertEqual(names(actions), [decide(302, attempt: core.attempt.number)], file: file, line: line)
        guard case .decideRedirect(let pending)? = Array(actions).first else {
            XCTFail("no hop to decide", file: file, line: line)
            return hop(302, attempt: core.attempt.number, asks: asks, policy: policy)
        }
        return RedirectHop(pending: pending, asks: asks, policy: policy, url: here)
    }

    /// One whole hop nobody asks about: what its decision leads to.
    private func redirectOnce(
        _ core: inout RequestCore, policy: RedirectPolicy = RedirectPolicy(), file: StaticString = #filePath,
        line: UInt = #line
    ) -> [String] {
        let hop = hopAfterRedirect(&core, policy: policy, file: file, line: line)
        return names(core.handle(.redirectHopReached(hop)))
    }

    private func decide(_ status: Int, attempt: Int) -> String {
        "decideRedirect(\(status), \(next), attempt \(attempt))"
    }

    private func followed(_ status: Int) -> String { "followRedirect(\(next), \(status))" }

    // MARK: - Reading actions

    /// Each action as a string to compare; the payloads that are objects (a transfer, an error)
    /// by what identifies them here.
    private func names(_ actions: RequestActions) -> [String] {
        actions.map { action in
            switch action {
            case .proceed: "proceed"
            case .markExecuting: "markExecuting"
            case .beginAttempt: "beginAttempt"
            case .addToEngine: "addToEngine"
            case .startProbe: "startProbe"
            case .lookForWaitingRequests: "lookForWaitingRequests"
            case .stopTransfer(_, let error): "stopTransfer(\(error.type))"
            case .discardPartialDownloadThenDeliverFailure(let error):
                "discardPartialDownloadThenDeliverFailure(\(error.type))"
            case .leaveQueueWaitingList: "leaveQueueWaitingList"
            case .stopWaitingForCredentialPrompt: "stopWaitingForCredentialPrompt"
            case .takeNextProxy: "takeNextProxy"
            case .storeRedirectHopThenFollow(let location, let status):
                "storeRedirectHopThenFollow(\(location ?? "nil"), \(status))"
            case .decideRedirect(let pending):
                "decideRedirect(\(pending.status), \(pending.next), attempt \(pending.attempt))"
            case .askWhereToRedirect(let url): "askWhereToRedirect(\(url))"
            case .followRedirect(let url, let status): "followRedirect(\(url), \(status))"
            case .rememberCredentialsThenAnswerChallenge(let proxy):
                "rememberCredentialsThenAnswerChallenge(proxy: \(proxy))"
            case .answerChallenge(let proxy): "answerChallenge(proxy: \(proxy))"
            case .failForCredentials(let proxy, let reason): "failForCredentials(proxy: \(proxy), \(reason))"
            case .serveNotModified: "serveNotModified"
            case .checkReachability(let error): "checkReachability(\(error.type))"
            case .rememberCredentialsThenFinish: "rememberCredentialsThenFinish"
            case .reviewResponse: "reviewResponse"
            case .retryAfter(let delay): "retryAfter(\(delay))"
            case .finishAttempt(let outcome): "finishAttempt(\(describe(outcome)))"
            case .deliverTerminal(let outcome): "deliverTerminal(\(describe(outcome)))"
            case .postFinished: "postFinished"
            }
        }
    }

    private func describe(_ outcome: RequestCore.Outcome) -> String {
        switch outcome {
        case .finished: "finished"
        case .failed(let error): "failed: \(error.type)"
        }
    }

    /// The transfer an action carries (added to the engine, or stopped).
    private func transferOf(_ actions: RequestActions) -> Transfer? {
        for action in actions {
            switch action {
            case .addToEngine(let transfer), .stopTransfer(let transfer, _): return transfer
            default: continue
            }
        }
        return nil
    }

    /// The failure an attempt finishes with.
    private func failure(in actions: RequestActions) -> HTTPRequestError? {
        for case .finishAttempt(.failed(let error)) in actions { return error }
        return nil
    }

    // MARK: - Transfers

    private func makeTransfer() -> Transfer {
        let configuration = TransferConfiguration(
            url: "http://127.0.0.1:1/", method: "GET", headerLines: [], body: nil, usesHTTP10: false,
            inactivityTimeout: 10)
        return Transfer(configuration: configuration, sink: sink)
    }

    /// The sink the transfers above would report to; no transfer here reaches the engine.
    private let sink = HTTPRequest(url: URL(string: "http://127.0.0.1:1/")!)
}

/// An object asked to decide (a redirect, credentials): the core holds it weakly.
private final class Decider {}
