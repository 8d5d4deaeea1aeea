import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// A form request as the server receives it, byte for byte: asi-tests.md §3 and more.
final class FormDataRequestTests: ServerTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try makeTemporaryDirectory("courier-forms")
    }

    private func send(_ request: FormDataRequest, file: StaticString = #filePath, line: UInt = #line) throws -> Echo {
        request.startSynchronous()
        XCTAssertNil(request.error, file: file, line: line)
        return try Echo(from: request)
    }

    private func multipart(_ echo: Echo, file: StaticString = #filePath, line: UInt = #line) throws -> Multipart {
        let type = try XCTUnwrap(echo.header("Content-Type"), file: file, line: line)
        XCTAssertTrue(
            type.hasPrefix("multipart/form-data; charset=utf-8; boundary=0xKhTmLbOuNdArY-"), type, file: file,
            line: line)
        let boundary = try XCTUnwrap(Multipart.boundary(in: type), file: file, line: line)
        return try XCTUnwrap(Multipart(body: echo.bodyData, boundary: boundary), "framing", file: file, line: line)
    }

    func testThatTheDefaultMethodIsPost() {
        XCTAssertEqual(FormDataRequest(url: server.url(.echo)).requestMethod, "POST")
    }

    func testThatEmptyValuesAndDataAreSent() throws {
        let request = FormDataRequest(url: server.url(.echo))
        request.setPostValue("", forKey: "key1")
        request.setPostValue("value2", forKey: "key2")
        request.setData(Data(), forKey: "file1")
        request.setData(Data("hello".utf8), forKey: "file2")
        let parts = try multipart(try send(request)).parts
        XCTAssertEqual(parts.map { $0.parameter("name") }, ["key1", "key2", "file1", "file2"])
        XCTAssertEqual(parts.map(\.text), ["", "value2", "", "hello"])

        let urlEncoded = FormDataRequest(url: server.url(.echo))
        urlEncoded.addPostValue("value2", forKey: "key2")
        let echo = try send(urlEncoded)
        XCTAssertEqual(String(decoding: echo.bodyData, as: UTF8.self), "key2=value2")
        XCTAssertEqual(echo.header("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(echo.method, "POST")
    }

    func testThatAFileUploadCarriesNameSizeAndType() throws {
        let big = Data((0..<32768).map { UInt8(truncatingIfNeeded: $0) })
        let path = try directory.writeFile("bigfile", big)
        let request = FormDataRequest(url: server.url(.echo))
        request.setPostValue("foo", forKey: "post_var")
        request.setPostValue("2026-11-30", forKey: "post_var2")
        request.setFile(path, forKey: "file")
        XCTAssertEqual(request.postFormat, .multipart)
        let parts = try multipart(try send(request)).parts
        XCTAssertEqual(parts[0].text, "foo")
        XCTAssertEqual(parts[1].text, "2026-11-30")
        XCTAssertEqual(parts[2].parameter("filename"), "bigfile")
        XCTAssertEqual(parts[2].body, big)
        XCTAssertEqual(parts[2].contentType, "application/octet-stream")
        XCTAssertNil(parts[0].contentType, "fields have no part Content-Type")

        for useData in [false, true] {
            let named = FormDataRequest(url: server.url(.echo))
            if useData {
                named.setData(big, withFileName: "myfile", andContentType: "text/plain", forKey: "file")
            } else {
                named.setFile(path, withFileName: "myfile", andContentType: "text/plain", forKey: "file")
            }
            let part = try multipart(try send(named)).parts[0]
            XCTAssertEqual(part.parameter("filename"), "myfile")
            XCTAssertEqual(part.contentType, "text/plain")
            XCTAssertEqual(part.body, big)
        }

        let data = FormDataRequest(url: server.url(.echo))
        data.setData(big, forKey: "file")
        let part = try multipart(try send(data)).parts[0]
        XCTAssertEqual(part.parameter("filename"), "file")
    }

    func testThatURLEncodingEscapesLikeASI() throws {
        let request = FormDataRequest(url: server.url(.echo))
        request.addPostValue("value1", forKey: "value1")
        request.addPostValue("(%20 ? =)", forKey: "value2")
        request.addPostValue("£100.00", forKey: "value3")
        request.addPostValue("", forKey: "value4")
        request.addPostValue("&??aaa=//ciaoèèè", forKey: "teskey&aa")
        let body = String(decoding: try send(request).bodyData, as: UTF8.self)
        XCTAssertEqual(
            body,
            "value1=value1&value2=%28%2520%20%3F%20%3D%29&value3=%C2%A3100.00&value4=&"
                + "teskey%26aa=%26%3F%3Faaa%3D%2F%2Fciao%C3%A8%C3%A8%C3%A8")
        // And it decodes back to what was sent.
        let pairs = body.split(separator: "&").map { $0.split(separator: "=", omittingEmptySubsequences: false) }
        XCTAssertEqual(
            pairs.last.map { $0.map { String($0).removingPercentEncoding! } }, ["teskey&aa", "&??aaa=//ciaoèèè"])
    }

    func testThatTheCharsetIsNamedAndApplied() throws {
        let cases: [(String.Encoding, String, String, String)] = [
            (.isoLatin1, "iso-8859-1", "café", "v=caf%E9"), (.windowsCP1252, "windows-1252", "€uro", "v=%80uro"),
            (.shiftJIS, "shift_jis", "日本", "v=%93%FA%96%7B"),
        ]
        for (encoding, name, value, expected) in cases {
            let urlEncoded = FormDataRequest(url: server.url(.echo))
            urlEncoded.stringEncoding = encoding
            urlEncoded.setPostValue(value, forKey: "v")
            let echo = try send(urlEncoded)
            XCTAssertEqual(echo.header("Content-Type"), "application/x-www-form-urlencoded; charset=\(name)")
            XCTAssertEqual(String(decoding: echo.bodyData, as: UTF8.self), expected)

            let multipart = FormDataRequest(url: server.url(.echo))
            multipart.stringEncoding = encoding
            multipart.postFormat = .multipart
            multipart.setPostValue(value, forKey: "v")
            multipart.addData(Data("raw".utf8), forKey: "d")
            let echoed = try send(multipart)
            let type = try XCTUnwrap(echoed.header("Content-Type"))
            XCTAssertTrue(type.hasPrefix("multipart/form-data; charset=\(name); boundary="))
            let parts = try XCTUnwrap(Multipart(body: echoed.bodyData, boundary: Multipart.boundary(in: type)!)).parts
            XCTAssertEqual(parts[0].body, value.data(using: encoding))
            XCTAssertEqual(parts[1].contentType, "application/octet-stream", "no charset on a data part")
        }
    }

    func testThatPUTIsKeptAndDELETEIsKeptToo() throws {
        let put = FormDataRequest(url: server.url(.echo))
        put.requestMethod = "PUT"
        put.setPostValue("cheep cheep", forKey: "hello")
        let echo = try send(put)
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(String(decoding: echo.bodyData, as: UTF8.self), "hello=cheep%20cheep")

        // (fix) ASI turned a DELETE with a body into POST; a method you set is kept.
        let delete = FormDataRequest(url: server.url(.echo))
        delete.requestMethod = "DELETE"
        delete.setPostValue("cheep cheep", forKey: "hello")
        XCTAssertEqual(try send(delete).method, "DELETE")
    }

    func testThatCopyKeepsTheFormAndTheClass() throws {
        let original = FormDataRequest(url: server.url(.echo))
        original.setPostValue("kept", forKey: "field")
        original.addData(Data("data".utf8), forKey: "part")
        original.stringEncoding = .isoLatin1
        let copy = original.copy()
        XCTAssertTrue(type(of: copy) == FormDataRequest.self)
        XCTAssertEqual(copy.stringEncoding, .isoLatin1)
        XCTAssertEqual(copy.postFormat, .multipart)
        let parts = try XCTUnwrap(
            Multipart(
                body: try send(copy).bodyData,
                boundary: Multipart.boundary(in: try XCTUnwrap(try Echo(from: copy).header("Content-Type")))!)
        ).parts
        XCTAssertEqual(parts.map(\.text), ["kept", "data"])
    }

    func testThatRepeatedKeysAreKeptAndSetReplacesThemAll() throws {
        let one = try directory.writeFile("file1.txt", Data("one".utf8))
        let two = try directory.writeFile("file2.txt", Data("two".utf8))
        let request = FormDataRequest(url: server.url(.echo))
        for value in ["here", "are", "some", "values"] { request.addPostValue(value, forKey: "test_value[]") }
        request.addFile(one, forKey: "test_file[]")
        request.addFile(two, forKey: "test_file[]")
        let parts = try multipart(try send(request)).parts
        XCTAssertEqual(parts.prefix(4).map(\.text), ["here", "are", "some", "values"])
        XCTAssertEqual(parts.suffix(2).map { $0.parameter("filename") }, ["file1.txt", "file2.txt"])
        XCTAssertEqual(parts.suffix(2).map(\.contentType), ["text/plain", "text/plain"])

        let replaced = FormDataRequest(url: server.url(.echo))
        for value in ["here", "are", "some", "values"] { replaced.addPostValue(value, forKey: "test_value[]") }
        replaced.addFile(one, forKey: "test_file[]")
        replaced.addFile(two, forKey: "test_file[]")
        replaced.setPostValue("this is new data", forKey: "test_value[]")
        replaced.setData(Data("new".utf8), forKey: "test_file[]")
        let newParts = try multipart(try send(replaced)).parts
        XCTAssertEqual(newParts.map(\.text), ["this is new data", "new"])
        XCTAssertEqual(newParts[1].parameter("filename"), "file")
    }

    func testThatSetReplacesAddAndSetAlikeAndACopySendsTheSameForm() throws {
        let path = try directory.writeFile("photo.txt", Data("file bytes".utf8))
        let request = FormDataRequest(url: server.url(.echo))
        request.addPostValue("added", forKey: "name")
        request.setPostValue("set", forKey: "name")
        request.setPostValue("set again", forKey: "name")
        request.addData(Data("added".utf8), forKey: "photo")
        request.setData(Data("set".utf8), forKey: "photo")
        request.setFile(path, forKey: "photo")
        request.setData(Data("other".utf8), forKey: "other")
        request.addPostValue("kept", forKey: "plain")
        let expected = ["set again", "kept", "file bytes", "other"]

        let before = request.copy()
        let sent = try multipart(try send(request)).parts
        XCTAssertEqual(sent.map(\.text), expected)
        XCTAssertEqual(sent.map { $0.parameter("name") }, ["name", "plain", "photo", "other"])
        XCTAssertEqual(sent[2].parameter("filename"), "photo.txt")
        // A copy made before the request ran, and one made after: the same form, framed anew.
        let after = request.copy()
        for copy in [before, after] {
            XCTAssertEqual(try multipart(try send(copy)).parts, sent)
        }
        XCTAssertEqual(try multipart(try send(after.copy())).parts, sent, "a copy of a copy")

        let urlEncoded = FormDataRequest(url: server.url(.echo))
        urlEncoded.addPostValue("one", forKey: "k")
        urlEncoded.setPostValue("two", forKey: "k")
        _ = try send(urlEncoded)
        let copy = urlEncoded.copy()
        copy.setPostValue("three", forKey: "k")
        copy.postFormat = .multipart
        XCTAssertEqual(try multipart(try send(copy)).parts.map(\.text), ["three"], "the copy's own form is sent")
    }

    func testThatHostileKeysAndFileNamesCannotBreakTheFraming() throws {
        let request = FormDataRequest(url: server.url(.echo))
        request.addPostValue("v", forKey: "a\"b\r\nContent-Type: evil")
        request.addData(Data("x".utf8), withFileName: "f\"\r\n\r\n--oops", andContentType: nil, forKey: "k\n")
        let parts = try multipart(try send(request)).parts
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts[0].parameter("name"), "a%22b%0D%0AContent-Type: evil")
        XCTAssertEqual(parts[0].headers.count, 1, "no header was injected")
        XCTAssertEqual(parts[1].parameter("filename"), "f%22%0D%0A%0D%0A--oops")
        XCTAssertEqual(parts[1].parameter("name"), "k%0A")
        XCTAssertEqual(parts[1].text, "x")
    }

    func testThatAMissingFileFailsBeforeSendingNamingThePath() {
        let request = FormDataRequest(url: server.url(.echo))
        request.setPostValue("v", forKey: "k")
        request.addFile("/no/such/upload.bin", forKey: "file")
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertEqual(request.error?.code, 6)
        XCTAssertTrue(request.error?.message.contains("/no/such/upload.bin") ?? false)
        XCTAssertEqual(server.connectionsAccepted, 0)
    }

    func testThatUploadProgressIsExactForAStreamedFile() throws {
        let path = try directory.writeFile("progress.bin", Data(count: 3_000_000))
        let request = FormDataRequest(url: server.url(.echo))
        request.setPostValue("v", forKey: "k")
        request.addFile(path, forKey: "file")
        let progress = RecordingProgress()
        request.uploadProgressDelegate = progress
        let echo = try send(request)
        XCTAssertEqual(progress.current.uploadIncrements, [Int64(echo.bodyLength)])
        XCTAssertEqual(progress.current.sent.reduce(0, +), Int64(echo.bodyLength))
        XCTAssertEqual(progress.current.fractions.last, 1.0)
        XCTAssertEqual(echo.header("Content-Length"), "\(echo.bodyLength)")
    }

    func testThatMimeTypesComeFromTheFileName() throws {
        let text = try directory.writeFile("testfile.txt", Data("x".utf8))
        let bare = try directory.writeFile("testfile", Data("x".utf8))
        XCTAssertEqual(FormDataRequest.mimeType(forFileAtPath: text), "text/plain")
        XCTAssertEqual(FormDataRequest.mimeType(forFileAtPath: bare), "application/octet-stream")
        XCTAssertNil(FormDataRequest.mimeType(forFileAtPath: "/nowhere"))
        let png = try directory.writeFile("image.png", Data("x".utf8))
        XCTAssertEqual(FormDataRequest.mimeType(forFileAtPath: png), "image/png")
    }
}

/// A form request subclass per endpoint.
final class SignupForm: FormDataRequest, @unchecked Sendable {}

extension FormDataRequestTests {
    func testThatASubclassCopiesAsItself() {
        let form = SignupForm(url: server.url(.echo))
        form.setPostValue("x", forKey: "y")
        let copy: SignupForm = form.copy()
        XCTAssertEqual(copy.postFormat, .urlEncoded)
    }
}
