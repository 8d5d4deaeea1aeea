@testable import Courier
import Foundation
import XCTest

/// S3's documents, socket-free: the XML reader, error documents, dates, checksums and the
/// multipart upload's parts.
final class S3DocumentTests: XCTestCase {
    func testThatAnErrorDocumentIsReadWhateverItsDeclarationAndNamespace() throws {
        let body = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Code>NoSuchKey</Code>\
            <Message>The specified key does not exist.</Message><Key>a &amp; b &#233;&#x20AC;</Key>\
            <RequestId>4442587FB7D0A2F9</RequestId><Resource><![CDATA[/b/a & b]]></Resource></Error>
            """.utf8)
        let error = S3Error.from(statusCode: 404, reason: "Not Found", headers: ["x-amz-bucket-region": "eu-west-1"], body: body)
        XCTAssertEqual(error.code, "NoSuchKey")
        XCTAssertEqual(error.message, "The specified key does not exist.")
        XCTAssertEqual(error.requestID, "4442587FB7D0A2F9")
        XCTAssertEqual(error.resource, "/b/a & b")
        XCTAssertEqual(error.region, "eu-west-1")
        XCTAssertEqual(try S3XMLElement.parse(body).text("Key"), "a & b é€")
        XCTAssertTrue(S3Error.isErrorDocument(body))
    }

    func testThatAResponseWithoutADocumentGetsACodeFromItsStatus() {
        let error = S3Error.from(statusCode: 404, reason: "Not Found", headers: ["x-amz-request-id": "R1"], body: Data())
        XCTAssertEqual(error.code, "NotFound")
        XCTAssertEqual(error.message, "Not Found")
        XCTAssertEqual(error.requestID, "R1")
        XCTAssertFalse(S3Error.isErrorDocument(Data("<CopyObjectResult/>".utf8)))
    }

    func testThatMalformedOrHostileXMLIsRefusedNotExpanded() {
        let bad = [
            "<a><b></a>", "<a>", "text", "<a></a><b></b>", "<a>&unknown;</a>", "<a>&amp</a>",
            "<!DOCTYPE a [<!ENTITY x \"xx\">]><a>&x;</a>",
            String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100),
        ]
        for text in bad {
            XCTAssertThrowsError(try S3XMLElement.parse(Data(text.utf8)), text)
        }
    }

    func testThatAListingsElementsAreRead() throws {
        let body = Data(
            """
            <ListBucketResult><Name>b</Name><IsTruncated>true</IsTruncated>\
            <NextContinuationToken>tok</NextContinuationToken>\
            <Contents><Key>a/1.txt</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>\
            <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>\
            <StorageClass>STANDARD</StorageClass></Contents>\
            <CommonPrefixes><Prefix>a/b/</Prefix></CommonPrefixes></ListBucketResult>
            """.utf8)
        let document = try S3XMLElement.parse(body)
        let object = S3BucketObject(listed: try XCTUnwrap(document.child("Contents")), bucket: "b")
        XCTAssertEqual(object.key, "a/1.txt")
        XCTAssertEqual(object.eTag, "fba9dede5f27731c9771645a39863328")
        XCTAssertEqual(object.size, 434_234)
        XCTAssertEqual(object.storageClass, .standard)
        XCTAssertEqual(object.lastModified, Date(timeIntervalSince1970: 1_255_369_830))
        XCTAssertEqual(document.children("CommonPrefixes").compactMap { $0.text("Prefix") }, ["a/b/"])
    }

    func testThatS3sDatesAreReadInBothForms() {
        XCTAssertEqual(S3Date.parse("2009-10-12T17:50:30.500Z"), Date(timeIntervalSince1970: 1_255_369_830.5))
        XCTAssertEqual(S3Date.parse("2009-10-12T19:50:30+02:00"), Date(timeIntervalSince1970: 1_255_369_830))
        XCTAssertEqual(S3Date.parse("Mon, 12 Oct 2009 17:50:30 GMT"), Date(timeIntervalSince1970: 1_255_369_830))
        XCTAssertNil(S3Date.parse("2009-13-12T17:50:30Z"))
        XCTAssertNil(S3Date.parse("yesterday"))
    }

    func testThatCRC32CMatchesItsCheckValue() {
        // The CRC-32C catalogue's check value for "123456789".
        let crc = Array("123456789".utf8).withUnsafeBytes { CRC32C.update(0, $0) }
        XCTAssertEqual(crc, 0xE306_9283)
        let split = Array("123456789".utf8).withUnsafeBytes { bytes in
            CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: bytes[..<4])), UnsafeRawBufferPointer(rebasing: bytes[4...]))
        }
        XCTAssertEqual(split, crc, "carried over pieces")
    }

    func testThatChecksumsAreTheBase64OfTheBigEndianDigest() throws {
        let url = URL(string: "http://127.0.0.1/")!
        let body = S3PayloadDigest.Payload.data(Data("123456789".utf8))
        let crc32 = try S3PayloadDigest.compute(body, sha256: false, checksum: .crc32, cached: nil, url: url)
        XCTAssertEqual(crc32.checksum, Data([0xCB, 0xF4, 0x39, 0x26]).base64EncodedString())
        let crc32c = try S3PayloadDigest.compute(body, sha256: false, checksum: .crc32c, cached: nil, url: url)
        XCTAssertEqual(crc32c.checksum, Data([0xE3, 0x06, 0x92, 0x83]).base64EncodedString())
        let sha = try S3PayloadDigest.compute(body, sha256: true, checksum: .sha256, cached: nil, url: url)
        XCTAssertEqual(sha.sha256, "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225")
        XCTAssertEqual(sha.checksum, Data(Digests.sha256(Data("123456789".utf8))).base64EncodedString())
    }

    func testThatAFileRangeIsHashedAsItsBytesAlone() throws {
        let path = NSTemporaryDirectory() + "s3-range-\(UUID().uuidString)"
        try Data("xxx123456789yyy".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let digest = try S3PayloadDigest.compute(
            .pieces([.fileRange(path, offset: 3, length: 9)]), sha256: true, checksum: .crc32c, cached: nil,
            url: URL(string: "http://127.0.0.1/")!)
        XCTAssertEqual(digest.sha256, "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225")
        XCTAssertEqual(digest.checksum, Data([0xE3, 0x06, 0x92, 0x83]).base64EncodedString())
    }

    func testThatPartsCoverTheFileInOrderWithAShorterLast() {
        let mebibyte: Int64 = 1024 * 1024
        let parts = S3MultipartUpload.parts(ofFileSize: 12 * mebibyte, partSize: 5 * mebibyte)
        XCTAssertEqual(parts.map(\.number), [1, 2, 3])
        XCTAssertEqual(parts.map(\.offset), [0, 5 * mebibyte, 10 * mebibyte])
        XCTAssertEqual(parts.map(\.length), [5 * mebibyte, 5 * mebibyte, 2 * mebibyte])
        XCTAssertEqual(S3MultipartUpload.parts(ofFileSize: 12 * mebibyte, partSize: 1).first?.length, 5 * mebibyte, "5 MiB at least")
        XCTAssertEqual(S3MultipartUpload.parts(ofFileSize: 0, partSize: 8 * mebibyte).count, 1)
    }

    func testThatAHugeFileGetsLargerPartsToStayWithinTenThousand() {
        let size: Int64 = 100 * 1024 * 1024 * 1024  // 100 GiB at 8 MiB would be 12,800 parts
        let parts = S3MultipartUpload.parts(ofFileSize: size, partSize: 8 * 1024 * 1024)
        XCTAssertLessThanOrEqual(parts.count, 10_000)
        XCTAssertEqual(parts.reduce(0) { $0 + $1.length }, size)
        XCTAssertEqual(parts[0].length % (1024 * 1024), 0, "whole MiBs")
    }

    func testThatTheCompletionDocumentListsPartsInOrder() {
        let document = String(decoding: S3MultipartUpload.completionDocument([2: "\"b\"", 1: "\"a\"", 10: "\"c\""]), as: UTF8.self)
        XCTAssertEqual(
            document,
            "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag></Part>"
                + "<Part><PartNumber>2</PartNumber><ETag>\"b\"</ETag></Part>"
                + "<Part><PartNumber>10</PartNumber><ETag>\"c\"</ETag></Part></CompleteMultipartUpload>")
    }
}
