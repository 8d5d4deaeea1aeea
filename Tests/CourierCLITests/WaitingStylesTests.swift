import CourierTestSupport
import XCTest

/// Every way a program waits for a NetworkQueue works, each in a program of its own
/// (`Tests/WaitingStyles`), run with a deadline: a wait that hangs fails its test instead of the
/// suite. Before, a wait in top-level code after an `await`, in a main-queue block under
/// `dispatchMain()` or `RunLoop.main.run()`, or on the queue's own serial callback queue hung for
/// ever without a word.
final class WaitingStylesTests: XCTestCase {
    private func run(_ style: String, file: StaticString = #filePath, line: UInt = #line) throws -> CLIRun {
        try CourierBinary.run([style], timeout: 30, executable: "courier-waiting-styles")
    }

    private func assertFinishesAll(_ style: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try run(style)
        XCTAssertEqual(run.status, 0, run.transcript, file: file, line: line)
        XCTAssertTrue(run.standardOutput.contains("\(style): 20 finished"), run.transcript, file: file, line: line)
    }

    func testThatTopLevelCodeWaitsForAQueueBeforeAnyAwait() throws {
        try assertFinishesAll("top-level")
    }

    func testThatTopLevelCodeWaitsForAQueueAfterAnAwait() throws {
        let run = try run("top-level-after-await")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("awaited 200"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("top-level-after-await: 20 finished"), run.transcript)
    }

    func testThatMainActorCodeWaitsForAQueue() throws {
        try assertFinishesAll("main-actor")
    }

    func testThatAMainQueueBlockUnderDispatchMainWaitsForAQueue() throws {
        try assertFinishesAll("dispatch-main")
    }

    func testThatAMainQueueBlockUnderTheRunLoopWaitsForAQueue() throws {
        try assertFinishesAll("run-loop")
    }

    func testThatTheQueuesOwnSerialCallbackQueueWaitsForIt() throws {
        try assertFinishesAll("private-queue")
    }

    func testThatABackgroundThreadWaitsForAQueueCallingBackOnTheMainQueue() throws {
        try assertFinishesAll("background-thread")
    }

    func testThatWaitingInsideAQueuesOwnCallbackStopsWithAMessageInsteadOfHanging() throws {
        let run = try run("inside-own-callback")
        XCTAssertNotEqual(run.status, 0, run.transcript)
        XCTAssertTrue(
            run.standardError.contains("was called from a callback of one of this queue's own requests"), run.transcript)
        XCTAssertTrue(run.standardError.contains("await queue.allFinished()"), "it says what to do: \(run.transcript)")
    }

    func testThatTopLevelCodeAwaitsAllFinished() throws {
        try assertFinishesAll("all-finished")
    }

    func testThatATaskAwaitsAllFinished() throws {
        try assertFinishesAll("all-finished-in-task")
    }

    func testThatTopLevelCodeStreamsEachFinishedRequestOnce() throws {
        let run = try run("finished-requests")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("streamed 20 distinct"), run.transcript)
    }
}
