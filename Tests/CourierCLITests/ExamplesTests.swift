import CourierTestSupport
import XCTest

/// The programs in Examples/ build and do what their comments say, run as a user would run them.
final class ExamplesTests: XCTestCase {
    func testThatTheQueueExampleDownloadsEverythingWithItsProgressBar() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "QueueWithProgress")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("all done: 4 finished, 0 failed"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("done   200 4194304 4194304 bytes"), run.transcript)
        XCTAssertTrue(run.standardError.contains("100%"), "the bar reached the end: \(run.transcript)")
    }

    func testThatTheLoginExampleIsAskedOnceAndReusesTheCredentials() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "LoginRequest")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("first:  You are ada by Basic"), run.transcript)
        XCTAssertTrue(
            run.standardOutput.contains("second: You are ada by Basic (retries: 0, asked: 1)"), run.transcript)
    }

    func testThatTheCacheExampleServesFromTheCacheAndOffline() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "CachedFeed")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("first : version 1 from the network"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("second: version 1 from the cache"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("offline: version 1 from the cache"), run.transcript)
    }
}

extension ExamplesTests {
    func testThatTheJSONExampleParsesEachEndpointAndFailsOnAnUnusableAnswer() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "JSONEndpoints")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            run.outputLines,
            [
                "echo: method POST, 28 bytes",
                "profile: Ada Lovelace, born 1815",
                "ProfileRequest failed: unhandledException: the answer is not the JSON ProfileRequest expects",
                "broken: failed as it should, reply nil",
            ], run.transcript)
    }

    func testThatTheFormExampleUploadsTheFieldAndTheWholeFileWithProgress() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "FormUpload")
        XCTAssertEqual(run.status, 0, run.transcript)
        let lines = run.outputLines
        XCTAssertEqual(Array(lines.prefix(4)), ["sent 25%", "sent 50%", "sent 75%", "sent 100%"], run.transcript)
        for line in [
            "the bytes-sent block counted every one of them", "field album: holiday photos",
            "file photo: 2097152 bytes, identical",
        ] {
            XCTAssertTrue(lines.contains(line), "\(line): \(run.transcript)")
        }
    }

    func testThatTheTokenExampleFetchesATokenFirstAndRetriesACopy() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "TokenRetry")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            run.outputLines,
            [
                "/protected/demo -> 401, fetching a token first",
                "token fetched: token-1",
                "retrying /protected/demo with token-1",
                "/protected/demo -> 200: secret for token-1",
                "/text -> 200: public news",  // waited behind the token and the retry
                "/protected/demo -> 200: secret for token-1",  // made with the token: no 401
            ], run.transcript)
    }

    func testThatTheAsyncExampleAwaitsRunsConcurrentlyAndCancels() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "AsyncAwait")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            run.outputLines,
            [
                "one: 200 hello",
                "async let: 1000 and 100000 bytes",
                "group: 1024, 16384, 262144, 1048576 bytes",
                "timeout: requestTimedOut",
                "cancelled: requestCancelled promptly",
                "all as expected",
            ], run.transcript)
    }

    func testThatTheDelegateExampleHearsEveryFormOfCallback() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "DelegateController")
        XCTAssertEqual(run.status, 0, run.transcript)
        let lines = run.outputLines
        // The synchronous ones come first, in order; the asynchronous ones as they finish.
        XCTAssertEqual(Array(lines.prefix(2)), ["sync: hello", "sync failed: connectionFailure"], run.transcript)
        XCTAssertEqual(
            Set(lines.dropFirst(2)),
            [
                "delegate: hello", "delegate failed: connectionFailure", "selector: hello",
                "selector failed: connectionFailure", "block: hello", "block failed: connectionFailure",
                "heard 8 of 8",
            ], run.transcript)
        XCTAssertEqual(lines.last, "heard 8 of 8", run.transcript)
    }
}

extension ExamplesTests {
    /// The newcomer's program: top-level code awaits one request, then waits for a queue of 20
    /// downloads with a progress bar and a delegate printing each finish, then streams a second
    /// queue. On a terminal, each printed line lands above the bar, which is drawn again below it.
    func testThatTheAsyncQueueExampleRunsToTheEndWithItsLinesAboveTheBar() throws {
        let run = try CourierBinary.runOnTerminal([], timeout: 60, executable: "AsyncQueue")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("greeting: hello"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("streamed 20 requests, 13762560 bytes"), run.transcript)
        let terminal = run.terminal
        let doneLines = terminal.components(separatedBy: "\n").filter { $0.contains("done ") }
        XCTAssertEqual(doneLines.count, 20, run.transcript)
        for line in doneLines {
            // The bar's line is erased before each printed line, so no line starts inside a bar.
            let before = try XCTUnwrap(line.components(separatedBy: "done ").first)
            XCTAssertTrue(before.isEmpty || before.hasSuffix("\r\u{1B}[K"), "inside the bar: \(run.transcript)")
        }
        // The bar comes back below the last printed line and ends at 100%.
        let afterLast = try XCTUnwrap(terminal.components(separatedBy: "done ").last)
        XCTAssertTrue(afterLast.contains("100%"), run.transcript)
    }
}

extension ExamplesTests {
    /// The S3 program against its own local S3 service: a folder up through a queue, listed in
    /// pages of two, one file back byte for byte, and a presigned URL fetched without credentials.
    func testThatTheS3ExampleUploadsListsDownloadsAndPresigns() throws {
        // Its own server, not the caller's: no AWS_* setting of the test's may send it elsewhere.
        let blank = [
            "AWS_ENDPOINT_URL", "S3SYNC_BUCKET", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
        ]
        let launch = CourierBinary.Launch(
            environment: Dictionary(uniqueKeysWithValues: blank.map { ($0, "") }), timeout: 60)
        let run = try CourierBinary.run([], launch, executable: "S3Sync")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            run.outputLines,
            [
                "created bucket s3sync-example",
                "uploaded 25%", "uploaded 50%", "uploaded 75%", "uploaded 100%",
                "uploaded 5 files, 2205500 bytes",
                "listed site/index.html 1200", "listed site/notes/ideas.txt 4000",
                "listed site/notes/todo.txt 300", "listed site/photos/cat.jpg 1500000",
                "listed site/photos/owl.jpg 700000",
                "3 pages; folders: site/notes/ site/photos/",
                "downloaded site/photos/cat.jpg: identical, metadata [\"synced-by\": \"S3Sync\"]",
                "presigned URL: 200, 300 bytes, no credentials sent",
            ], run.transcript)
    }
}

extension ExamplesTests {
    /// The offline reader: the article saved with its three resources from the network, then read
    /// again from the cache with its server stopped, no resource fetched, every local reference
    /// on disk and the copy the same.
    func testThatTheOfflineReaderSavesThePageAndReadsItAgainFromTheCacheAlone() throws {
        let run = try CourierBinary.run([], timeout: 60, executable: "OfflineReader")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            run.outputLines,
            [
                "saved: index.html and 3 resources in index_files/, 3 from the network",
                "offline: the page from the cache: true, resources fetched: 0, failed: 0",
                "offline: 2 local references in the page, 0 missing",
                "offline: reading \"The harbour at dawn\"",
                "offline copy identical to the one saved online: true",
            ], run.transcript)
    }
}
