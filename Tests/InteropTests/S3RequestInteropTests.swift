import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import Synchronization
import XCTest

/// ASIS3Request's family against a real S3 implementation (moto's server on 127.0.0.1): buckets,
/// objects to memory and to files, metadata, copies, listings in pages, errors, presigned URLs and
/// multipart uploads, each read back the way a user would.
final class S3RequestInteropTests: XCTestCase {
    private var moto: MotoServer!
    private var bucket = ""

    override func setUpWithError() throws {
        moto = try MotoServer.shared
        bucket = moto.uniqueBucketName("objects")
        let create = configured(S3BucketRequest.create(bucket: bucket))
        create.startSynchronous()
        XCTAssertNil(create.error)
    }

    /// `request` pointed at moto with its credentials (per request: the class-wide defaults are
    /// left alone for other tests).
    private func configured<Request: S3Request>(_ request: Request) -> Request {
        request.endpoint = moto.endpoint
        request.region = moto.region
        request.accessKey = moto.accessKey
        request.secretAccessKey = moto.secretAccessKey
        return request
    }

    @discardableResult
    private func run<Request: S3Request>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) -> Request {
        configured(request).startSynchronous()
        XCTAssertNil(request.error, "\(request)", file: file, line: line)
        return request
    }

    private static let awkwardKeys = ["plain.txt", "a b+c.txt", "at@sign=eq?q&amp", "dir/sub/é ü.txt", "tilde~_-."]

    // MARK: - Objects

    func testThatDataPutIsReadBackByteForByteUnderAwkwardKeys() {
        for key in Self.awkwardKeys {
            let body = Data("body of \(key)".utf8)
            let put = run(S3ObjectRequest.put(data: body, bucket: bucket, key: key))
            XCTAssertEqual(put.responseStatusCode, 200, key)
            let get = run(S3ObjectRequest(bucket: bucket, key: key))
            XCTAssertEqual(get.responseData(), body, key)
        }
        let listing = run(S3BucketRequest(bucket: bucket))
        XCTAssertEqual(Set(listing.objects.map(\.key)), Set(Self.awkwardKeys))
    }

    func testThatAFileIsStreamedUpAndDownloadedToAFile() throws {
        let folder = try makeTemporaryDirectory("s3")
        let source = folder.appendingPathComponent("source.bin").path
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        try bytes.write(to: URL(fileURLWithPath: source))
        let put = run(S3ObjectRequest.put(file: source, bucket: bucket, key: "big.bin"))
        XCTAssertEqual(put.responseHeaders["ETag"], "\"\(TestServer.md5Hex(of: bytes))\"")

        let destination = folder.appendingPathComponent("copy.bin").path
        let get = S3ObjectRequest(bucket: bucket, key: "big.bin")
        get.downloadDestinationPath = destination
        run(get)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)), bytes)
    }

    func testThatAnInterruptedDownloadResumesFromItsPartialFile() throws {
        let folder = try makeTemporaryDirectory("s3")
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        run(S3ObjectRequest.put(data: bytes, bucket: bucket, key: "resume.bin"))
        let destination = folder.appendingPathComponent("resume.bin").path
        let partial = folder.appendingPathComponent("resume.bin.part").path
        // What an earlier, interrupted download left: the first 50,000 bytes.
        try bytes.prefix(50_000).write(to: URL(fileURLWithPath: partial))
        let get = S3ObjectRequest(bucket: bucket, key: "resume.bin")
        get.downloadDestinationPath = destination
        get.temporaryFileDownloadPath = partial
        get.allowResumeForFileDownloads = true
        run(get)
        XCTAssertEqual(get.responseStatusCode, 206, "the rest only")
        XCTAssertEqual(get.totalBytesRead, 150_000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)), bytes)
    }

    func testThatMetadataStorageClassAndTypeAreStoredAndReadBackByHead() {
        let put = S3ObjectRequest.put(data: Data("x".utf8), bucket: bucket, key: "meta.txt")
        put.metadata = ["Author": "Ana", "project": "courier"]
        put.mimeType = "text/plain"
        put.storageClass = .reducedRedundancy
        run(put)
        let head = run(S3ObjectRequest.head(bucket: bucket, key: "meta.txt"))
        XCTAssertEqual(head.metadata, ["author": "Ana", "project": "courier"])
        XCTAssertEqual(head.responseHeaders["Content-Type"], "text/plain")
        XCTAssertEqual(head.responseHeaders["x-amz-storage-class"], "REDUCED_REDUNDANCY")
        XCTAssertNil(head.responseData(), "a HEAD has no body")
    }

    func testThatACopyKeepsTheBytesAndReplacesMetadataWhenGiven() {
        let put = S3ObjectRequest.put(data: Data("original".utf8), bucket: bucket, key: "from/a b.txt")
        put.metadata = ["kept": "yes"]
        run(put)
        run(S3ObjectRequest.copy(fromBucket: bucket, key: "from/a b.txt", toBucket: bucket, key: "to/kept.txt"))
        let kept = run(S3ObjectRequest(bucket: bucket, key: "to/kept.txt"))
        XCTAssertEqual(kept.responseString(), "original")
        XCTAssertEqual(kept.metadata, ["kept": "yes"])

        let replace = S3ObjectRequest.copy(fromBucket: bucket, key: "from/a b.txt", toBucket: bucket, key: "to/new.txt")
        replace.metadata = ["fresh": "1"]
        run(replace)
        XCTAssertEqual(run(S3ObjectRequest.head(bucket: bucket, key: "to/new.txt")).metadata, ["fresh": "1"])
    }

    func testThatADeletedObjectIsGoneWithNoSuchKey() throws {
        run(S3ObjectRequest.put(data: Data("x".utf8), bucket: bucket, key: "doomed"))
        let delete = run(S3ObjectRequest.delete(bucket: bucket, key: "doomed"))
        XCTAssertEqual(delete.responseStatusCode, 204)
        let get = configured(S3ObjectRequest(bucket: bucket, key: "doomed"))
        get.startSynchronous()
        let error = try XCTUnwrap(get.error)
        XCTAssertEqual(error.type, .serviceError)
        XCTAssertEqual(get.s3Error?.code, "NoSuchKey")
        XCTAssertEqual(get.s3Error?.statusCode, 404)
        XCTAssertEqual((error.underlyingError as? S3Error)?.code, "NoSuchKey")
        XCTAssertTrue(error.message.contains("NoSuchKey"), error.message)

        let head = configured(S3ObjectRequest.head(bucket: bucket, key: "doomed"))
        head.startSynchronous()
        XCTAssertEqual(head.error?.type, .serviceError)
        XCTAssertEqual(head.s3Error?.code, "NotFound", "a HEAD's 404 has no document: its status names it")
    }

    func testThatAFailedDownloadWritesNothingAtItsDestination() throws {
        let folder = try makeTemporaryDirectory("s3")
        let destination = folder.appendingPathComponent("never.bin").path
        let get = configured(S3ObjectRequest(bucket: bucket, key: "absent"))
        get.downloadDestinationPath = destination
        get.startSynchronous()
        XCTAssertEqual(get.s3Error?.code, "NoSuchKey")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "the error document is not the object")
    }

    func testThatAMissingBucketFailsWithNoSuchBucket() {
        let list = configured(S3BucketRequest(bucket: moto.uniqueBucketName("absent")))
        list.startSynchronous()
        XCTAssertEqual(list.error?.type, .serviceError)
        XCTAssertEqual(list.s3Error?.code, "NoSuchBucket")
    }

    // MARK: - Buckets and listings

    func testThatTwoThousandFiveHundredKeysListInThreePagesOfAThousand() throws {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 8
        let keys = (0..<2500).map { String(format: "k/%05d", $0) }
        let puts = keys.map { configured(S3ObjectRequest.put(data: Data($0.utf8), bucket: bucket, key: $0)) }
        for put in puts { queue.addOperation(put) }
        queue.go()
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(puts.filter { $0.error != nil }.count, 0)

        var pages: [[String]] = []
        var page: S3BucketRequest? = S3BucketRequest(bucket: bucket)
        page?.maxResultCount = 1000
        while let request = page {
            run(request)
            pages.append(request.objects.map(\.key))
            page = request.nextPageRequest()
            XCTAssertLessThan(pages.count, 5, "the pages end")
            if pages.count >= 5 { break }
        }
        XCTAssertEqual(pages.map(\.count), [1000, 1000, 500])
        XCTAssertEqual(pages.flatMap { $0 }, keys)
    }

    func testThatAPrefixAndDelimiterRollKeysUpIntoCommonPrefixes() {
        for key in ["photos/2023/a.jpg", "photos/2024/b.jpg", "photos/top.jpg", "docs/c.txt"] {
            run(S3ObjectRequest.put(data: Data("x".utf8), bucket: bucket, key: key))
        }
        let list = S3BucketRequest(bucket: bucket)
        list.prefix = "photos/"
        list.delimiter = "/"
        run(list)
        XCTAssertEqual(list.objects.map(\.key), ["photos/top.jpg"])
        XCTAssertEqual(list.commonPrefixes, ["photos/2023/", "photos/2024/"])
        XCTAssertFalse(list.isTruncated)
        XCTAssertNil(list.nextPageRequest())
        XCTAssertEqual(list.objects.first?.size, 1)
        XCTAssertEqual(list.objects.first?.bucket, bucket)

        let after = S3BucketRequest(bucket: bucket)
        after.startAfter = "photos/2023/a.jpg"
        run(after)
        XCTAssertEqual(after.objects.map(\.key), ["photos/2024/b.jpg", "photos/top.jpg"])
    }

    func testThatAListedObjectsRequestsReachIt() throws {
        run(S3ObjectRequest.put(data: Data("listed".utf8), bucket: bucket, key: "l.txt"))
        let object = try XCTUnwrap(run(S3BucketRequest(bucket: bucket)).objects.first)
        XCTAssertEqual(run(object.getRequest()).responseString(), "listed")
        XCTAssertEqual(run(object.headRequest()).responseHeaders["Content-Length"], "6")
        run(object.deleteRequest())
        XCTAssertEqual(run(S3BucketRequest(bucket: bucket)).objects, [])
    }

    func testThatABucketIsCreatedListedAndDeletedInAnotherRegion() throws {
        let name = moto.uniqueBucketName("regional")
        let create = S3BucketRequest.create(bucket: name)
        configured(create).region = "eu-west-1"
        create.startSynchronous()
        XCTAssertNil(create.error)
        let service = run(S3ServiceRequest())
        let listed = try XCTUnwrap(service.buckets.first { $0.name == name })
        XCTAssertNotNil(listed.creationDate)

        let location = HTTPRequest(url: moto.url(bucket: name, query: "location"))
        location.startSynchronous()
        XCTAssertTrue(location.responseString()?.contains("eu-west-1") == true, location.responseString() ?? "")

        let delete = S3BucketRequest.delete(bucket: name)
        configured(delete).region = "eu-west-1"
        delete.startSynchronous()
        XCTAssertNil(delete.error)
        XCTAssertFalse(run(S3ServiceRequest()).buckets.contains { $0.name == name })
    }

    // MARK: - Presigned URLs

    func testThatAPresignedURLIsFetchedByAPlainRequestWithoutCredentials() throws {
        run(S3ObjectRequest.put(data: Data("shared".utf8), bucket: bucket, key: "share/a b+c.txt"))
        let url = try configured(S3ObjectRequest(bucket: bucket, key: "share/a b+c.txt")).presignedURL(expiresIn: 300)
        XCTAssertTrue(url.absoluteString.contains("X-Amz-Signature="), url.absoluteString)
        XCTAssertTrue(url.absoluteString.contains("X-Amz-Expires=300"), url.absoluteString)
        let plain = HTTPRequest(url: url)
        plain.startSynchronous()
        XCTAssertEqual(plain.responseStatusCode, 200)
        XCTAssertEqual(plain.responseString(), "shared")

        let upload = configured(S3ObjectRequest.put(data: Data(), bucket: bucket, key: "share/up.txt"))
        let putURL = try upload.presignedURL(expiresIn: 60)
        let plainPut = HTTPRequest(url: putURL)
        plainPut.requestMethod = "PUT"
        plainPut.postBody = Data("uploaded".utf8)
        plainPut.startSynchronous()
        XCTAssertEqual(plainPut.responseStatusCode, 200, plainPut.responseString() ?? "")
        XCTAssertEqual(run(S3ObjectRequest(bucket: bucket, key: "share/up.txt")).responseString(), "uploaded")
    }

    // MARK: - Multipart uploads

    private func configure(_ upload: S3MultipartUpload) {
        let (endpoint, region, key, secret) = (moto.endpoint, moto.region, moto.accessKey, moto.secretAccessKey)
        upload.configure = { request in
            request.endpoint = endpoint
            request.region = region
            request.accessKey = key
            request.secretAccessKey = secret
        }
    }

    private func pendingUploads() -> String {
        let list = HTTPRequest(url: moto.url(bucket: bucket, query: "uploads"))
        list.startSynchronous()
        return list.responseString() ?? ""
    }

    func testThatTwelveMebibytesUploadInThreePartsAndReadBackExactly() async throws {
        let folder = try makeTemporaryDirectory("s3")
        let path = folder.appendingPathComponent("twelve.bin").path
        let bytes = Data((0..<(12 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let upload = S3MultipartUpload(file: path, bucket: bucket, key: "parts/twelve.bin")
        upload.partSize = 5 * 1024 * 1024
        configure(upload)
        let progress = RecordingProgress()
        upload.uploadProgressDelegate = progress
        let eTag = try await upload.upload()
        XCTAssertTrue(eTag.hasSuffix("-3"), eTag)
        XCTAssertNotNil(upload.uploadID)
        let get = configured(S3ObjectRequest(bucket: bucket, key: "parts/twelve.bin"))
        _ = try await get.response()
        XCTAssertEqual(get.responseData(), bytes)
        XCTAssertEqual(progress.last, 1, accuracy: 0.0001, "the parts' progress adds up to the whole file")
        XCTAssertFalse(pendingUploads().contains("<Upload>"), "completed, not pending")
    }

    func testThatAPartThatCannotBeReadAbortsTheUploadAndLeavesNoParts() async throws {
        let folder = try makeTemporaryDirectory("s3")
        let path = folder.appendingPathComponent("shrinking.bin").path
        try Data(count: 12 * 1024 * 1024).write(to: URL(fileURLWithPath: path))
        let upload = S3MultipartUpload(file: path, bucket: bucket, key: "parts/shrinking.bin")
        upload.partSize = 5 * 1024 * 1024
        upload.maxConcurrentParts = 1
        let (endpoint, region, key, secret) = (moto.endpoint, moto.region, moto.accessKey, moto.secretAccessKey)
        let made = Mutex(0)
        upload.configure = { request in
            request.endpoint = endpoint
            request.region = region
            request.accessKey = key
            request.secretAccessKey = secret
            // Once the upload has begun and its parts are made, the file shrinks under them.
            if made.withLock({ $0 += 1; return $0 }) == 4 { truncate(path, 1024) }
        }
        do {
            _ = try await upload.upload()
            XCTFail("the upload should fail")
        } catch {
            XCTAssertEqual(error.type, .internalErrorWhileBuildingRequest, error.message)
        }
        XCTAssertNotNil(upload.uploadID)
        XCTAssertFalse(pendingUploads().contains("<Upload>"), "aborted: \(pendingUploads())")
        let get = configured(S3ObjectRequest.head(bucket: bucket, key: "parts/shrinking.bin"))
        get.startSynchronous()
        XCTAssertEqual(get.s3Error?.code, "NotFound")
    }

    func testThatCancellingAnUploadAbortsItOnTheService() async throws {
        let folder = try makeTemporaryDirectory("s3")
        let path = folder.appendingPathComponent("cancelled.bin").path
        try Data(count: 15 * 1024 * 1024).write(to: URL(fileURLWithPath: path))
        let upload = S3MultipartUpload(file: path, bucket: bucket, key: "parts/cancelled.bin")
        upload.partSize = 5 * 1024 * 1024
        upload.maxConcurrentParts = 1
        configure(upload)
        let progress = RecordingProgress()
        progress.onProgress = { value in if value > 0.2 { upload.cancel() } }
        upload.uploadProgressDelegate = progress
        do {
            _ = try await upload.upload()
            XCTFail("the upload should be cancelled")
        } catch {
            XCTAssertEqual(error.type, .requestCancelled, error.message)
        }
        XCTAssertNotNil(upload.uploadID, "it had begun")
        XCTAssertFalse(pendingUploads().contains("<Upload>"), "aborted: \(pendingUploads())")
    }
}

/// Records the last progress it was told, and may act on each.
private final class RecordingProgress: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: `values` is behind its lock; `onProgress` is set before the upload.
    private let values = Mutex<[Double]>([])
    var onProgress: (@Sendable (Double) -> Void)?
    var last: Double { values.withLock { $0.last ?? 0 } }

    func setProgress(_ progress: Double) {
        values.withLock { $0.append(progress) }
        onProgress?(progress)
    }
}
