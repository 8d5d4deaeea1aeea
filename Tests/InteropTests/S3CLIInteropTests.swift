import Courier
import CourierTestSupport
import Foundation
import XCTest

/// `courier s3` run as a user runs it, against moto's S3 server on 127.0.0.1: what it prints, its
/// exit status, and the bytes that reach the service and come back.
final class S3CLIInteropTests: XCTestCase {
    /// Runs `courier s3 arguments` with moto as its service (through `AWS_ENDPOINT_URL_S3`, as a
    /// user of the AWS CLI points it at a local server), moto's credentials, and no proxy.
    func s3(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60,
        whileRunning: (@Sendable (pid_t) -> Void)? = nil
    ) throws -> CLIRun {
        let moto = try MotoServer.shared
        var launch = CourierBinary.Launch(
            environment: CLIInteropTests.environmentWithoutProxies.merging(
                [
                    "AWS_ACCESS_KEY_ID": moto.accessKey, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey,
                    "AWS_SESSION_TOKEN": "", "AWS_REGION": moto.region, "AWS_DEFAULT_REGION": "",
                    "AWS_ENDPOINT_URL_S3": moto.endpoint.absoluteString, "AWS_ENDPOINT_URL": "", "TZ": "UTC",
                ].merging(environment) { $1 }
            ) { $1 },
            timeout: timeout)
        launch.whileRunning = whileRunning
        return try CourierBinary.run(["s3"] + arguments, launch)
    }

    /// A new bucket on moto, made with `courier s3 mb`; its name.
    func makeBucket(_ prefix: String = "cli") throws -> String {
        let bucket = try MotoServer.shared.uniqueBucketName(prefix)
        let run = try s3(["mb", "s3://\(bucket)"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.outputLines, ["make_bucket: \(bucket)"], run.transcript)
        return bucket
    }

    /// A file of `size` random bytes.
    func makeRandomFile(_ name: String, size: Int, in directory: URL) throws -> URL {
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        let file = directory.appendingPathComponent(name)
        try (try random.read(upToCount: size) ?? Data()).write(to: file)
        return file
    }

    /// The multipart uploads moto still holds for `bucket` (ListMultipartUploads).
    func pendingUploads(in bucket: String) throws -> Int {
        let request = HTTPRequest(url: try MotoServer.shared.url(bucket: bucket, query: "uploads"))
        request.startSynchronous()
        XCTAssertEqual(request.responseStatusCode, 200, request.responseString() ?? "")
        return (request.responseString() ?? "").components(separatedBy: "<Upload>").count - 1
    }

    /// The object's ETag as a HEAD sees it, quotes removed.
    func eTag(of key: String, in bucket: String) throws -> String? {
        let moto = try MotoServer.shared
        let request = S3ObjectRequest.head(bucket: bucket, key: key)
        request.endpoint = moto.endpoint
        request.accessKey = moto.accessKey
        request.secretAccessKey = moto.secretAccessKey
        request.startSynchronous()
        return request.responseHeaders["ETag"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    // MARK: - Buckets, objects, listing

    func testThatMbThenCpUpAndBackToAFileAFolderAndStandardOutputKeepsEveryByte() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = try makeRandomFile("report.bin", size: 300_001, in: directory)

        let up = try s3(["cp", "--no-progress", source.path, "s3://\(bucket)/2024/report.bin"])
        XCTAssertEqual(up.status, 0, up.transcript)
        XCTAssertEqual(up.outputLines, ["upload: \(source.path) to s3://\(bucket)/2024/report.bin"], up.transcript)
        XCTAssertEqual(up.standardError, "", up.transcript)

        let file = directory.appendingPathComponent("copy.bin")
        let down = try s3(["cp", "--no-progress", "s3://\(bucket)/2024/report.bin", file.path])
        XCTAssertEqual(down.status, 0, down.transcript)
        XCTAssertEqual(down.outputLines, ["download: s3://\(bucket)/2024/report.bin to \(file.path)"], down.transcript)
        XCTAssertEqual(try Data(contentsOf: file), try Data(contentsOf: source))

        // Into a folder: named after the key's last segment, as aws names it.
        let folder = directory.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let intoFolder = try s3(["cp", "--no-progress", "s3://\(bucket)/2024/report.bin", folder.path])
        XCTAssertEqual(intoFolder.status, 0, intoFolder.transcript)
        XCTAssertEqual(try fileNames(in: folder), ["report.bin"], "no .part may be left: \(intoFolder.transcript)")
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("report.bin")), try Data(contentsOf: source))

        let toOutput = try s3(["cp", "--no-progress", "s3://\(bucket)/2024/report.bin", "-"])
        XCTAssertEqual(toOutput.status, 0, toOutput.transcript)
        XCTAssertEqual(toOutput.standardOutputData, try Data(contentsOf: source), "standard output is the object alone")
    }

    func testThatAnUploadToAKeyEndingInASlashIsNamedAfterTheFile() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = try makeRandomFile("cat.jpg", size: 1_000, in: directory)
        let run = try s3(["cp", "--no-progress", source.path, "s3://\(bucket)/photos/"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.outputLines, ["upload: \(source.path) to s3://\(bucket)/photos/cat.jpg"], run.transcript)
        let listed = try s3(["ls", "--recursive", "s3://\(bucket)"])
        XCTAssertEqual(listed.outputLines.map { String($0.split(separator: " ").last ?? "") }, ["photos/cat.jpg"])
    }

    func testThatLsListsBucketsThenOneLevelWithPRELinesThenEveryKeyRecursively() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let file = try makeRandomFile("f", size: 1234, in: directory)
        for key in ["top.txt", "docs/a.txt", "docs/b.txt", "docs/old/c.txt", "photos/d.jpg"] {
            let run = try s3(["cp", "-q", file.path, "s3://\(bucket)/\(key)"])
            XCTAssertEqual(run.status, 0, run.transcript)
        }
        let date = #"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"#

        let buckets = try s3(["ls"])
        XCTAssertEqual(buckets.status, 0, buckets.transcript)
        XCTAssertTrue(
            buckets.outputLines.contains { $0.wholeMatch(of: try! Regex("\(date) \(bucket)")) != nil },
            buckets.transcript)

        let top = try s3(["ls", "s3://\(bucket)"])
        XCTAssertEqual(top.status, 0, top.transcript)
        XCTAssertEqual(top.outputLines.count, 3, top.transcript)
        XCTAssertEqual(
            Array(top.outputLines.prefix(2)),
            [
                "                           PRE docs/", "                           PRE photos/",
            ])
        XCTAssertNotNil(top.outputLines[2].wholeMatch(of: try Regex("\(date)       1234 top.txt")), top.transcript)

        let docs = try s3(["ls", "s3://\(bucket)/docs/"])
        XCTAssertEqual(docs.outputLines.first, "                           PRE old/", docs.transcript)
        XCTAssertEqual(docs.outputLines.dropFirst().map { String($0.suffix(6)) }, ["a.txt", "b.txt"].map { " " + $0 })

        // A prefix that is not a whole folder name, as aws: the folder it starts.
        let partial = try s3(["ls", "s3://\(bucket)/do"])
        XCTAssertEqual(partial.outputLines, ["                           PRE docs/"], partial.transcript)

        let every = try s3(["ls", "--recursive", "s3://\(bucket)"])
        XCTAssertEqual(
            every.outputLines.map { String($0.split(separator: " ").last ?? "") },
            ["docs/a.txt", "docs/b.txt", "docs/old/c.txt", "photos/d.jpg", "top.txt"], every.transcript)
    }

    func testThatLsWithASmallPageSizeFetchesEveryPage() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let file = try makeRandomFile("f", size: 10, in: directory)
        let keys = (1...7).map { "k\($0)" }
        for key in keys {
            let run = try s3(["cp", "-q", file.path, "s3://\(bucket)/\(key)"])
            XCTAssertEqual(run.status, 0, run.transcript)
        }
        let run = try s3(["ls", "-v", "--page-size", "3", "s3://\(bucket)"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.outputLines.map { String($0.split(separator: " ").last ?? "") }, keys, run.transcript)
        // Three pages of at most three: the first without a token, the next two with one.
        let requests = run.standardError.split(separator: "\n").filter { $0.hasPrefix("* [Courier] → GET") }
        XCTAssertEqual(requests.count, 3, run.transcript)
        XCTAssertEqual(requests.filter { $0.contains("continuation-token=") }.count, 2, run.transcript)
        XCTAssertTrue(requests.allSatisfy { $0.contains("max-keys=3") }, run.transcript)
    }

    func testThatRmDeletesTheObjectAndRbRemovesOnlyAnEmptyBucket() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let file = try makeRandomFile("f", size: 10, in: directory)
        XCTAssertEqual(try s3(["cp", "-q", file.path, "s3://\(bucket)/gone.txt"]).status, 0)

        let full = try s3(["rb", "s3://\(bucket)"])
        XCTAssertEqual(full.status, 1, full.transcript)
        XCTAssertTrue(full.standardError.contains("(BucketNotEmpty)"), full.transcript)

        let removed = try s3(["rm", "s3://\(bucket)/gone.txt"])
        XCTAssertEqual(removed.status, 0, removed.transcript)
        XCTAssertEqual(removed.outputLines, ["delete: s3://\(bucket)/gone.txt"])
        XCTAssertEqual(try s3(["ls", "--recursive", "s3://\(bucket)"]).outputLines, [])

        let emptied = try s3(["rb", "s3://\(bucket)"])
        XCTAssertEqual(emptied.status, 0, emptied.transcript)
        XCTAssertEqual(emptied.outputLines, ["remove_bucket: \(bucket)"])
        XCTAssertFalse(try s3(["ls"]).standardOutput.contains(bucket))
    }

    // MARK: - Multipart

    func testThatAFileAboveTheThresholdIsUploadedInPartsAndComesBackByteExact() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        // 13 MiB: two parts of S3MultipartUpload's 8 MiB.
        let source = try makeRandomFile("big.bin", size: 13 * 1_048_576 + 5, in: directory)

        let up = try s3(["cp", "--no-progress", "--multipart-threshold", "5Mi", source.path, "s3://\(bucket)/big.bin"])
        XCTAssertEqual(up.status, 0, up.transcript)
        // A multipart object's ETag is "<md5 of the parts' md5s>-<parts>".
        XCTAssertEqual(try eTag(of: "big.bin", in: bucket)?.split(separator: "-").last, "2", up.transcript)
        XCTAssertEqual(try pendingUploads(in: bucket), 0)

        let file = directory.appendingPathComponent("back.bin")
        let down = try s3(["cp", "--no-progress", "s3://\(bucket)/big.bin", file.path])
        XCTAssertEqual(down.status, 0, down.transcript)
        XCTAssertEqual(try ExternalTool.md5(of: file), try ExternalTool.md5(of: source))

        // Under the threshold: one PUT, whose ETag is the file's MD5.
        let single = try s3(["cp", "-q", "--multipart-threshold", "16MiB", source.path, "s3://\(bucket)/one.bin"])
        XCTAssertEqual(single.status, 0, single.transcript)
        XCTAssertEqual(try eTag(of: "one.bin", in: bucket), try ExternalTool.md5(of: source))
    }

    func testThatCtrlCDuringAMultipartUploadAbortsItOnTheServiceAndExits130() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = directory.appendingPathComponent("slow.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path, contents: nil))
        XCTAssertEqual(truncate(source.path, 64 * 1_048_576), 0)
        let run = try s3(
            ["cp", "--no-progress", "--limit-rate", "4Mi", source.path, "s3://\(bucket)/slow.bin"],
            whileRunning: { pid in
                // Parts are on their way by then: 64 MiB at 4 MiB/s takes 16 s.
                sleep(2)
                kill(pid, SIGINT)
            })
        XCTAssertEqual(run.status, 130, run.transcript)
        XCTAssertTrue(run.standardError.contains("interrupted"), run.transcript)
        XCTAssertEqual(try pendingUploads(in: bucket), 0, "the upload must be aborted, its parts not kept")
        XCTAssertNil(try eTag(of: "slow.bin", in: bucket))
    }

    // MARK: - Downloads

    func testThatAFailedDownloadKeepsThePartAndContinueResumesItWithARange() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = try makeRandomFile("data.bin", size: 1_000_000, in: directory)
        XCTAssertEqual(try s3(["cp", "-q", source.path, "s3://\(bucket)/data.bin"]).status, 0)
        // What an interrupted run leaves: the first 400,000 bytes in FILE.part.
        let file = directory.appendingPathComponent("resumed.bin")
        try Data(try Data(contentsOf: source).prefix(400_000)).write(to: URL(fileURLWithPath: file.path + ".part"))

        let run = try s3(["cp", "-c", "-v", "--no-progress", "s3://\(bucket)/data.bin", file.path])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardError.contains("Range: bytes=400000-"), run.transcript)
        XCTAssertEqual(try Data(contentsOf: file), try Data(contentsOf: source))
        XCTAssertEqual(try fileNames(in: directory), ["data.bin", "resumed.bin"])

        // Without -c a stale part is not trusted: the object comes whole.
        try Data(repeating: 0xEE, count: 1000).write(to: URL(fileURLWithPath: file.path + ".part"))
        let fresh = try s3(["cp", "-v", "--no-progress", "s3://\(bucket)/data.bin", file.path])
        XCTAssertEqual(fresh.status, 0, fresh.transcript)
        XCTAssertFalse(fresh.standardError.contains("Range:"), fresh.transcript)
        XCTAssertEqual(try Data(contentsOf: file), try Data(contentsOf: source))
    }

    func testThatAMissingKeyExitsOneWithNoSuchKeyAndWritesNoFileAndNothingToStandardOutput() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("missing.bin")

        let toFile = try s3(["cp", "--no-progress", "s3://\(bucket)/missing.bin", file.path])
        XCTAssertEqual(toFile.status, 1, toFile.transcript)
        XCTAssertTrue(toFile.standardError.contains("(NoSuchKey) The specified key does not exist."), toFile.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "neither the file nor a .part holding the error")

        // To standard output the error document must not pass for the object, and S3's code must
        // still be read from it.
        let toOutput = try s3(["cp", "--no-progress", "s3://\(bucket)/missing.bin", "-"])
        XCTAssertEqual(toOutput.status, 1, toOutput.transcript)
        XCTAssertEqual(toOutput.standardOutput, "", toOutput.transcript)
        XCTAssertTrue(toOutput.standardError.contains("(NoSuchKey)"), toOutput.transcript)

        let noBucket = try s3(["ls", "s3://\(bucket)-not-made"])
        XCTAssertEqual(noBucket.status, 1, noBucket.transcript)
        XCTAssertTrue(noBucket.standardError.contains("(NoSuchBucket)"), noBucket.transcript)
    }

    // MARK: - Presigning

    func testThatAPresignedURLGivesTheObjectToAPlainCourierGet() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = try makeRandomFile("shared file.bin", size: 50_000, in: directory)
        XCTAssertEqual(try s3(["cp", "-q", source.path, "s3://\(bucket)/shared file.bin"]).status, 0)

        let presign = try s3(["presign", "s3://\(bucket)/shared file.bin", "--expires-in", "300"])
        XCTAssertEqual(presign.status, 0, presign.transcript)
        let url = try XCTUnwrap(presign.outputLines.first, presign.transcript)
        XCTAssertTrue(
            url.hasPrefix(try MotoServer.shared.endpoint.absoluteString + "/\(bucket)/shared%20file.bin?"), url)
        XCTAssertTrue(url.contains("X-Amz-Expires=300"), url)
        XCTAssertTrue(url.contains("X-Amz-Signature="), url)

        // No AWS variable in get's environment: the URL alone is the permission.
        let saved = directory.appendingPathComponent("fetched.bin")
        let get = try CourierBinary.run(
            ["get", "--no-progress", "-O", saved.path, url],
            CourierBinary.Launch(
                environment: CLIInteropTests.environmentWithoutProxies.merging(
                    ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""]) { $1 }))
        XCTAssertEqual(get.status, 0, get.transcript)
        XCTAssertEqual(try Data(contentsOf: saved), try Data(contentsOf: source))

        let unsigned = try s3(
            ["presign", "s3://\(bucket)/x"], environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        XCTAssertEqual(unsigned.status, 1, unsigned.transcript)
        XCTAssertTrue(unsigned.standardError.contains("needs credentials"), unsigned.transcript)
    }

    // MARK: - Where requests go, the bar, usage

    func testThatEndpointURLBeatsAWSEndpointURLS3WhichBeatsAWSEndpointURL() throws {
        let moto = try MotoServer.shared
        let nowhere = "http://127.0.0.1:9"
        let bucket = try makeBucket()

        let fromS3Variable = try s3(["ls"], environment: ["AWS_ENDPOINT_URL": nowhere])
        XCTAssertTrue(fromS3Variable.standardOutput.contains(bucket), fromS3Variable.transcript)
        let fromGeneral = try s3(
            ["ls"], environment: ["AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": moto.endpoint.absoluteString])
        XCTAssertTrue(fromGeneral.standardOutput.contains(bucket), fromGeneral.transcript)
        let fromFlag = try s3(
            ["ls", "--endpoint-url", moto.endpoint.absoluteString], environment: ["AWS_ENDPOINT_URL_S3": nowhere])
        XCTAssertTrue(fromFlag.standardOutput.contains(bucket), fromFlag.transcript)
        let refused = try s3(["ls"], environment: ["AWS_ENDPOINT_URL_S3": nowhere])
        XCTAssertEqual(refused.status, 1, refused.transcript)
        XCTAssertTrue(refused.standardError.hasPrefix("ls failed: "), refused.transcript)
    }

    func testThatRegionMakesTheBucketInThatRegion() throws {
        let moto = try MotoServer.shared
        let bucket = moto.uniqueBucketName("region")
        let made = try s3(["mb", "--region", "eu-west-1", "s3://\(bucket)"])
        XCTAssertEqual(made.status, 0, made.transcript)
        let location = HTTPRequest(url: moto.url(bucket: bucket, query: "location"))
        location.startSynchronous()
        XCTAssertTrue(location.responseString()?.contains(">eu-west-1<") == true, location.responseString() ?? "")

        let directory = try makeTemporaryDirectory()
        let file = try makeRandomFile("f", size: 10, in: directory)
        let up = try s3(["cp", "--no-progress", "--region", "eu-west-1", file.path, "s3://\(bucket)/f"])
        XCTAssertEqual(up.status, 0, up.transcript)
    }

    func testThatWithoutATerminalTheBarIsPlainLinesUnlessNoProgressOrQuiet() throws {
        let bucket = try makeBucket()
        let directory = try makeTemporaryDirectory()
        let source = try makeRandomFile("bar.bin", size: 2_000_000, in: directory)

        let up = try s3(["cp", source.path, "s3://\(bucket)/bar.bin"])
        XCTAssertEqual(up.status, 0, up.transcript)
        let lines = up.standardError.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty, up.transcript)
        XCTAssertFalse(up.standardError.contains("\r") || up.standardError.contains("\u{1B}"), up.transcript)
        XCTAssertNotNil(lines.last?.wholeMatch(of: /\[={20}\] +100%  2\.0 MB \/ 2\.0 MB  .*/), up.transcript)
        XCTAssertFalse(up.standardOutput.contains("["), "the bar is never on standard output")

        let down = try s3(["cp", "s3://\(bucket)/bar.bin", directory.appendingPathComponent("b").path])
        XCTAssertNotNil(
            down.standardError.split(separator: "\n").last?.wholeMatch(of: /\[={20}\] +100%  2\.0 MB \/ 2\.0 MB  .*/),
            down.transcript)

        for flag in ["--no-progress", "-q"] {
            let quiet = try s3(["cp", flag, source.path, "s3://\(bucket)/bar.bin"])
            XCTAssertEqual(quiet.status, 0, quiet.transcript)
            XCTAssertEqual(quiet.standardError, "", quiet.transcript)
            XCTAssertEqual(quiet.outputLines.count, flag == "-q" ? 0 : 1, quiet.transcript)
        }
    }

    func testThatABadCommandLineExits2WithAPointerToTheHelp() throws {
        for arguments in [
            ["cp", "a", "b"], ["cp", "s3://b/k"], ["ls", "s3://"], ["rm", "s3://bucket"], ["mb", "s3://b/key"],
            ["sync", "s3://b"], ["cp", "--multipart-threshold", "1Mi", "f", "s3://b/k"],
            ["presign", "s3://b/k", "--expires-in", "604801"], ["cp", "-u", "ada", "f", "s3://b/k"],
        ] {
            let run = try s3(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.hasSuffix("Try 'courier s3 --help' for more.\n"), run.transcript)
        }
    }

    // MARK: - The issue's bound

    /// Issue 34: a 1 GiB sparse file to moto and back, byte-exact, the bar drawn, and courier
    /// under 64 MiB of resident memory each way (its peak, sampled from outside while it ran).
    func testThatAOneGiBSparseFileGoesToS3AndBackByteExactUnder64MiBWithTheBar() throws {
        let bucket = try makeBucket("gib")
        let directory = try makeTemporaryDirectory()
        let source = directory.appendingPathComponent("sparse.img")
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path, contents: nil))
        XCTAssertEqual(truncate(source.path, 1 << 30), 0)
        let bound = 64 * 1_048_576
        let started = Date()

        let up = try s3(["cp", source.path, "s3://\(bucket)/sparse.img"], timeout: 300)
        let uploaded = Date()
        XCTAssertEqual(up.status, 0, up.transcript)
        XCTAssertTrue(up.standardError.split(separator: "\n").last?.contains("100%") == true, up.transcript)
        XCTAssertLessThan(try XCTUnwrap(up.peakResidentBytes), bound)
        XCTAssertEqual(try pendingUploads(in: bucket), 0)

        let back = directory.appendingPathComponent("back.img")
        let down = try s3(["cp", "s3://\(bucket)/sparse.img", back.path], timeout: 300)
        XCTAssertEqual(down.status, 0, down.transcript)
        XCTAssertTrue(
            down.standardError.split(separator: "\n").last?.contains("100%  1.1 GB / 1.1 GB") == true, down.transcript)
        XCTAssertLessThan(try XCTUnwrap(down.peakResidentBytes), bound)
        XCTAssertEqual(try ExternalTool.md5(of: back), try ExternalTool.md5(of: source))
        print(
            "1 GiB through moto: up \(String(format: "%.1f", uploaded.timeIntervalSince(started))) s, "
                + "\(up.peakResidentBytes! / 1_048_576) MiB peak; down "
                + "\(String(format: "%.1f", Date().timeIntervalSince(uploaded))) s, "
                + "\(down.peakResidentBytes! / 1_048_576) MiB peak")
        XCTAssertEqual(try s3(["rm", "-q", "s3://\(bucket)/sparse.img"]).status, 0)
    }
}
