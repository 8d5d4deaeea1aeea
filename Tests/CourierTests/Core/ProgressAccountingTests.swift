import XCTest

@testable import Courier

/// Progress arithmetic without a socket: size announcements, byte deltas, coalescing, the
/// negative deltas that take back a discarded attempt, and the corrections at the end that keep
/// a queue's sums exact.
final class ProgressAccountingTests: XCTestCase {
    private let accurate = ProgressAccounting.Settings()
    private let simple = ProgressAccounting.Settings(showAccurateProgress: false)

    private func started(_ settings: ProgressAccounting.Settings = .init(), body: Int64? = 0) -> ProgressAccounting {
        var accounting = ProgressAccounting()
        _ = accounting.attemptStarted(settings, bodyLength: body)
        return accounting
    }

    func testThatTheFirstAttemptAnnouncesItsUploadSize() {
        var accounting = ProgressAccounting()
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: 1000), [.uploadSize(1000)])
        XCTAssertEqual(accounting.uploadAnnounced, 1000)
    }

    func testThatAnEmptyBodyAnnouncesNothing() {
        var accounting = ProgressAccounting()
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: 0), [])
    }

    func testThatABodyOfUnknownLengthIsOneStep() {
        var accounting = ProgressAccounting()
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: nil), [.uploadSize(1)])
        XCTAssertFalse(accounting.isUploadAccurate)
    }

    func testThatSimpleProgressAnnouncesOneStepEachWay() {
        var accounting = ProgressAccounting()
        XCTAssertEqual(accounting.attemptStarted(simple, bodyLength: 500), [.uploadSize(1), .downloadSize(1)])
    }

    func testThatARequestThatMustNotResetAnnouncesNothing() {
        var accounting = ProgressAccounting()
        let quiet = ProgressAccounting.Settings(
            showAccurateProgress: false, shouldResetDownloadProgress: false, shouldResetUploadProgress: false)
        XCTAssertEqual(accounting.attemptStarted(quiet, bodyLength: 500), [])
    }

    func testThatOnlyTheFirstAttemptZeroesTheProgressDelegates() {
        var accounting = ProgressAccounting()
        XCTAssertTrue(accounting.zeroesFractions(accurate, resumesPartialDownload: false) == (true, true))
        _ = accounting.attemptStarted(accurate, bodyLength: 0)
        XCTAssertTrue(accounting.zeroesFractions(accurate, resumesPartialDownload: false) == (false, false))
    }

    func testThatAResumedDownloadKeepsItsProgressWhereThePartialFileLeftIt() {
        XCTAssertTrue(ProgressAccounting().zeroesFractions(accurate, resumesPartialDownload: true) == (false, true))
    }

    func testThatARequestThatMustNotResetLeavesTheDelegatesAlone() {
        let quiet = ProgressAccounting.Settings(shouldResetDownloadProgress: false, shouldResetUploadProgress: false)
        XCTAssertTrue(ProgressAccounting().zeroesFractions(quiet, resumesPartialDownload: false) == (false, false))
    }

    func testThatTheContentLengthIsAnnouncedOnce() {
        var accounting = started()
        let first = accounting.headersReceived(
            statusCode: 200, method: "GET", contentLength: 4096, announcesDownload: true)
        XCTAssertEqual(first.changes, [.downloadSize(4096)])
        XCTAssertFalse(first.turnsOffAccurateProgress)
        XCTAssertEqual(accounting.downloadExpected, 4096)
        let again = accounting.headersReceived(
            statusCode: 200, method: "GET", contentLength: 4096, announcesDownload: true)
        XCTAssertEqual(again.changes, [], "a second response of the request counts against the first size")
    }

    func testThatAResponseWithoutContentLengthFallsBackToOneStepAndTurnsAccurateOff() {
        var accounting = started()
        let headers = accounting.headersReceived(
            statusCode: 200, method: "GET", contentLength: nil, announcesDownload: true)
        XCTAssertEqual(headers.changes, [.downloadSize(1)])
        XCTAssertTrue(headers.turnsOffAccurateProgress)
        XCTAssertFalse(accounting.isDownloadAccurate)
    }

    func testThatAHEADOr204Or304WithALengthIsOneStepButKeepsAccurateOn() {
        for (status, method) in [(200, "HEAD"), (204, "GET"), (304, "GET")] {
            var accounting = started()
            let headers = accounting.headersReceived(
                statusCode: status, method: method, contentLength: 10, announcesDownload: true)
            XCTAssertEqual(headers.changes, [.downloadSize(1)], "\(status) \(method)")
            XCTAssertFalse(headers.turnsOffAccurateProgress, "it had a length, though no body")
        }
    }

    func testThatAZeroLengthIsNotAnnounced() {
        var accounting = started()
        XCTAssertEqual(
            accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 0, announcesDownload: true)
                .changes, [])
    }

    func testThatOnlyTheFirstReportOfABurstPostsADelivery() {
        var accounting = started()
        XCTAssertTrue(accounting.bytesMoved(received: 10, sent: 0))
        XCTAssertFalse(accounting.bytesMoved(received: 20, sent: 0), "coalesced into the delivery already posted")
        _ = accounting.takePending()
        XCTAssertTrue(accounting.bytesMoved(received: 30, sent: 0))
    }

    func testThatADeliveryReportsTheBytesSinceTheLastOne() {
        var accounting = started()
        _ = accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 100, announcesDownload: true)
        _ = accounting.bytesMoved(received: 25, sent: 0)
        _ = accounting.bytesMoved(received: 40, sent: 0)
        let first = accounting.takePending()
        XCTAssertEqual(first.changes, [.received(40)])
        XCTAssertEqual(first.downloadFraction, 0.4)
        _ = accounting.bytesMoved(received: 100, sent: 0)
        XCTAssertEqual(accounting.takePending().changes, [.received(60)])
        XCTAssertEqual(accounting.takePending().changes, [], "nothing pending: nothing to say")
    }

    func testThatBytesBeyondTheContentLengthCapTheFractionAtOne() {
        var accounting = started()
        _ = accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 10, announcesDownload: true)
        _ = accounting.bytesMoved(received: 15, sent: 0)
        XCTAssertEqual(accounting.takePending().downloadFraction, 1)
    }

    func testThatUploadDeltasStopAtTheBodyLength() {
        var accounting = started(body: 100)
        _ = accounting.bytesMoved(received: 0, sent: 60)
        let first = accounting.takePending()
        XCTAssertEqual(first.changes, [.sent(60)])
        XCTAssertEqual(first.uploadFraction, 0.6)
        _ = accounting.bytesMoved(received: 0, sent: 130)  // headers libcurl counted too
        XCTAssertEqual(accounting.takePending().changes, [.sent(40)])
    }

    func testThatARetriedAttemptTakesBackWhatTheLastOneReported() {
        var accounting = started(body: 100)
        _ = accounting.headersReceived(statusCode: 200, method: "POST", contentLength: 50, announcesDownload: true)
        _ = accounting.bytesMoved(received: 30, sent: 100)
        _ = accounting.takePending()
        let restart = accounting.attemptStarted(accurate, bodyLength: 100)
        XCTAssertEqual(restart, [.received(-30), .sent(-100)], "the discarded attempt's bytes, taken back")
        XCTAssertEqual(accounting.downloadReported, 0)
        XCTAssertEqual(accounting.uploadReported, 0)
    }

    func testThatARestartWithNothingReportedTakesNothingBack() {
        var accounting = started()
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: 0), [])
    }

    func testThatARedirectThatDropsTheBodyCorrectsTheUploadSize() {
        var accounting = started(body: 100)
        // A 302 turned the POST into a GET: the next attempt sends nothing.
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: 0), [.uploadSize(-100)])
        XCTAssertEqual(accounting.uploadAnnounced, 0)
    }

    func testThatTheQueuesUploadCountIsCorrectedToTheBodySent() {
        var accounting = ProgressAccounting()
        accounting.uploadCountedByQueue(10)
        XCTAssertEqual(accounting.attemptStarted(accurate, bodyLength: 250), [.uploadSize(240)])
    }

    func testThatAProbedSizeIsNotAnnouncedAgain() {
        var accounting = ProgressAccounting()
        accounting.downloadSizeProbed(500)
        _ = accounting.attemptStarted(accurate, bodyLength: 0)
        XCTAssertEqual(
            accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 500, announcesDownload: true)
                .changes,
            [])
    }

    func testThatAProbeWithoutALengthMakesTheDownloadOneStep() {
        var accounting = ProgressAccounting()
        accounting.downloadSizeProbed(nil)
        _ = accounting.attemptStarted(accurate, bodyLength: 0)
        XCTAssertFalse(accounting.isDownloadAccurate)
        XCTAssertEqual(accounting.ended(received: 800, sent: 0), [.received(1)])
    }

    func testThatTheEndReportsTheLastBytesAndCorrectsTheAnnouncedSize() {
        var accounting = started()
        _ = accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 100, announcesDownload: true)
        _ = accounting.bytesMoved(received: 40, sent: 0)
        _ = accounting.takePending()
        // The body was cut short at 90 bytes.
        XCTAssertEqual(accounting.ended(received: 90, sent: 0), [.received(50), .downloadSize(-10)])
    }

    func testThatTheEndOfASimpleRequestIsOneStepEachWay() {
        var accounting = started(simple, body: 500)
        XCTAssertEqual(accounting.ended(received: 1000, sent: 500), [.received(1), .sent(1)])
        XCTAssertEqual(accounting.ended(received: 1000, sent: 500), [], "counted once")
    }

    func testThatARequestThatNeverStartedReportsNothingAtItsEnd() {
        var accounting = ProgressAccounting()
        XCTAssertEqual(accounting.ended(received: 0, sent: 0), [])
    }

    func testThatAnAttemptWithoutAResponseReportsNoDownloadAtItsEnd() {
        var accounting = started(body: 100)
        XCTAssertEqual(accounting.ended(received: 0, sent: 100), [.sent(100)])
    }

    func testThatAnUploadCutShortCorrectsTheAnnouncedUploadSize() {
        var accounting = started(body: 100)
        XCTAssertEqual(accounting.ended(received: 0, sent: 30), [.sent(30), .uploadSize(-70)])
    }

    func testThatTheSumsOfARetriedRequestComeOutAtWhatTheLastAttemptMoved() {
        var accounting = ProgressAccounting()
        var received: Int64 = 0
        var announced: Int64 = 0
        func add(_ changes: [ProgressChange]) {
            for change in changes {
                switch change {
                case .received(let bytes): received += bytes
                case .downloadSize(let bytes): announced += bytes
                case .sent, .uploadSize: break
                }
            }
        }
        add(accounting.attemptStarted(accurate, bodyLength: 0))
        add(
            accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 100, announcesDownload: true)
                .changes)
        _ = accounting.bytesMoved(received: 70, sent: 0)
        add(accounting.takePending().changes)
        // A timeout: the second attempt starts over and gets all of it.
        add(accounting.attemptStarted(accurate, bodyLength: 0))
        add(
            accounting.headersReceived(statusCode: 200, method: "GET", contentLength: 100, announcesDownload: true)
                .changes)
        _ = accounting.bytesMoved(received: 100, sent: 0)
        add(accounting.takePending().changes)
        add(accounting.ended(received: 100, sent: 0))
        XCTAssertEqual(received, 100)
        XCTAssertEqual(announced, 100)
    }
}
