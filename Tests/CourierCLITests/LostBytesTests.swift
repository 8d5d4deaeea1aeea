import CourierTestServer
import CourierTestSupport
import XCTest

/// A body that cannot be written fails its transfer, at once and saying why: a pipe closed early,
/// a file-size limit, a full file system. Each runs `courier` under `/bin/sh`, which sets up what
/// a user's shell would (a pipe into `head`, `ulimit -f`, a full tmpfs).
final class LostBytesTests: ServerTestCase {
    /// Runs `script` with `sh -c`, `$0` being the courier binary and `$1`... `arguments`; returns
    /// what it printed on both streams.
    private func shell(_ script: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> Tool.Run {
        try Tool.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script, try CourierBinary.url().path] + arguments,
            errorsToOutput: true, timeout: timeout)
    }

    /// A tmpfs of `kibibytes` mounted on `directory` in a mount namespace of its own, for the
    /// script that follows: the mount goes when the script ends, and needs no privilege where
    /// user namespaces are allowed.
    private func onFullFileSystem(_ directory: URL, kibibytes: Int, _ script: String) -> String {
        "unshare --mount --map-root-user /bin/sh -c 'mount -t tmpfs -o size=\(kibibytes)k tmpfs \"$1\" || exit 99; "
            + script.replacingOccurrences(of: "'", with: "'\\''") + "' \"$0\" \"$@\""
    }

    func testThatAPipeClosedEarlyStopsTheDownloadAndFailsIt() throws {
        let directory = try makeTemporaryDirectory()
        let total = 256 * 1024 * 1024
        let url = server.url(.bytes(total)).absoluteString
        let status = directory.appendingPathComponent("status").path
        let started = Date()
        let run = try shell(
            #"{ "$0" get --no-progress -O - "$1"; echo "$?" > "$2"; } | head -c 10 > /dev/null"#, [url, status])
        XCTAssertEqual(try String(contentsOfFile: status, encoding: .utf8), "1\n", run.text)
        XCTAssertTrue(run.text.contains("FAIL 200"), run.text)
        XCTAssertTrue(run.text.contains("standard output closed after "), run.text)
        XCTAssertFalse(run.text.contains("ok "), run.text)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "stopped at once, not after the whole body")
        let received = run.text.firstMatch(of: /FAIL 200 +(\d+) B/).flatMap { Int($0.1) }
        XCTAssertLessThan(received ?? total, total / 2, "the rest of the body was not fetched: \(run.text)")
    }

    func testThatAFileSizeLimitFailsTheDownloadAsFileTooLarge() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.bytes(8 * 1024 * 1024)).absoluteString
        let output = directory.appendingPathComponent("out").path
        // 4096 blocks of 512 bytes (POSIX sh's unit): 2 MiB. With SIGXFSZ ignored, as courier
        // ignores it anyway, write(2) fails with EFBIG.
        let limited = #"ulimit -f 4096; trap '' XFSZ; "#
        let toStandardOutput = try shell(limited + #""$0" get --no-progress -O - "$1" > "$2""#, [url, output])
        XCTAssertEqual(toStandardOutput.status, 1, toStandardOutput.text)
        XCTAssertTrue(toStandardOutput.text.contains("file too large after 2097152 B"), toStandardOutput.text)

        let folder = directory.appendingPathComponent("folder").path
        let toFolder = try shell(limited + #""$0" get --no-progress -o "$2" "$1""#, [url, folder])
        XCTAssertEqual(toFolder.status, 1, toFolder.text)
        XCTAssertTrue(toFolder.text.contains("File too large"), toFolder.text)
        XCTAssertEqual(try fileNames(in: URL(fileURLWithPath: folder)), [], "nothing left at the name, no .part")
    }

    func testThatAFullFileSystemFailsTheDownloadAsNoSpaceLeft() throws {
        let mountPoint = try makeTemporaryDirectory()
        let url = server.url(.bytes(4 * 1024 * 1024)).absoluteString
        let script = onFullFileSystem(
            mountPoint, kibibytes: 1024,
            #""$0" get --no-progress -O - "$2" > "$1/out"; echo "status $?"; ls -A "$1"; "#
                + #""$0" get --no-progress -o "$1/folder" "$2"; echo "status $?"; ls -A "$1/folder""#)
        let run = try shell(script, [mountPoint.path, url])
        XCTAssertFalse(run.text.contains("status 99"), "could not mount a tmpfs: \(run.text)")
        let lines = run.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(run.text.contains("no space left after "), run.text)
        XCTAssertEqual(lines.filter { $0.hasPrefix("status ") }, ["status 1", "status 1"], run.text)
        XCTAssertTrue(run.text.contains("No space left on device"), "the -o case: \(run.text)")
        XCTAssertFalse(run.text.contains("ok "), run.text)
        XCTAssertTrue(run.text.hasSuffix("status 1\n"), "the folder holds nothing, not even a .part: \(run.text)")
    }

    func testThatPostFailsWhenItsOutputCannotBeWritten() throws {
        let mountPoint = try makeTemporaryDirectory()
        let url = server.url(.bytes(4 * 1024 * 1024)).absoluteString
        let script = onFullFileSystem(
            mountPoint, kibibytes: 1024,
            #""$0" post --no-progress "$2" --data x > "$1/out"; echo "status $?"; "#
                + #""$0" post --no-progress -o "$1/file" "$2" --data x; echo "status $?""#)
        let run = try shell(script, [mountPoint.path, url])
        XCTAssertFalse(run.text.contains("status 99"), "could not mount a tmpfs: \(run.text)")
        XCTAssertEqual(
            run.text.split(separator: "\n").filter { $0.hasPrefix("status ") }, ["status 1", "status 1"], run.text)
        XCTAssertEqual(
            run.text.components(separatedBy: "the response body was not written: no space left").count, 3, run.text)
    }

    func testThatResultLinesLostToAFullDiskFailTheRun() throws {
        let mountPoint = try makeTemporaryDirectory()
        let folder = try makeTemporaryDirectory()
        let url = server.url(.bytes(1000)).absoluteString
        // The tmpfs is filled first, so the first result line finds no room.
        let script = onFullFileSystem(
            mountPoint, kibibytes: 64,
            #"dd if=/dev/zero of="$1/fill" bs=4096 2>/dev/null; "#
                + #""$0" get --no-progress -o "$3" "$2" > "$1/list"; echo "status $?""#)
        let run = try shell(script, [mountPoint.path, url, folder.path])
        XCTAssertFalse(run.text.contains("status 99"), "could not mount a tmpfs: \(run.text)")
        XCTAssertTrue(run.text.hasSuffix("status 1\n"), run.text)
        XCTAssertTrue(
            run.text.contains("courier: the result lines were not all written to standard output: no space left"),
            run.text)
        XCTAssertEqual(try fileNames(in: folder), ["1000"], "the download itself was saved")
    }
}
