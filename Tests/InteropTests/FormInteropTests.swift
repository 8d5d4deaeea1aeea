import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Forms read back by parsers that are not Courier's: httpbin's, and a big upload to nginx.
final class FormInteropTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-forms")
    }

    private struct Posted: Decodable {
        let form: [String: FormValue]
        let files: [String: String]
        let headers: [String: String]
    }

    /// httpbin gives one value as a string and repeated ones as a list.
    private enum FormValue: Decodable, Equatable {
        case one(String)
        case many([String])
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let list = try? container.decode([String].self) {
                self = .many(list)
            } else {
                self = .one(try container.decode(String.self))
            }
        }
    }

    func testThatHTTPBinReadsBackFieldsRepeatedFieldsAndFiles() throws {
        let servers = try InteropServers.shared
        let attachment = directory.appendingPathComponent("notes.txt")
        try Data("the file's contents\n".utf8).write(to: attachment)
        let request = FormDataRequest(url: servers.httpbinURL("/post"))
        request.setPostValue("Ben", forKey: "first_name")
        request.addPostValue("one", forKey: "tag")
        request.addPostValue("two", forKey: "tag")
        request.setPostValue("Grüße, café", forKey: "greeting")
        request.addFile(attachment.path, forKey: "attachment")
        request.addData(Data("in memory".utf8), withFileName: "memo.txt", andContentType: "text/plain", forKey: "memo")
        request.startSynchronous()
        XCTAssertNil(request.error)
        let posted = try JSONDecoder().decode(Posted.self, from: try XCTUnwrap(request.responseData()))
        XCTAssertEqual(posted.form["first_name"], .one("Ben"))
        XCTAssertEqual(posted.form["tag"], .many(["one", "two"]))
        XCTAssertEqual(posted.form["greeting"], .one("Grüße, café"))
        XCTAssertEqual(posted.files["attachment"], "the file's contents\n")
        XCTAssertEqual(posted.files["memo"], "in memory")
        XCTAssertTrue(
            posted.headers["Content-Type"]?.hasPrefix("multipart/form-data; charset=utf-8; boundary=") ?? false)

        let urlEncoded = FormDataRequest(url: servers.httpbinURL("/post"))
        urlEncoded.setPostValue("a b&c=d", forKey: "q")
        urlEncoded.addPostValue("x", forKey: "r")
        urlEncoded.addPostValue("y", forKey: "r")
        urlEncoded.startSynchronous()
        let echoed = try JSONDecoder().decode(Posted.self, from: try XCTUnwrap(urlEncoded.responseData()))
        XCTAssertEqual(echoed.form["q"], .one("a b&c=d"))
        XCTAssertEqual(echoed.form["r"], .many(["x", "y"]))
    }

    func testThatAOneGiBFileFormStreamsToNginxWithFlatMemoryAndExactProgress() throws {
        if ChildProcess.role == "form-upload" {
            try uploadBigForm()
            return
        }
        try skipIfQuickRun()
        let result = try ChildProcess.run(
            test: "InteropTests.FormInteropTests/testThatAOneGiBFileFormStreamsToNginxWithFlatMemoryAndExactProgress",
            role: "form-upload", timeout: 600, measuresMemory: true)
        XCTAssertEqual(result.status, 0, result.output)
        let peak = try XCTUnwrap(result.report("form-upload").peakRSSMiB)
        XCTAssertLessThan(peak, 64, "peak RSS in MiB while posting a 1 GiB file")
    }

    /// The child's part: a form with a 1 GiB sparse file PUT to nginx's DAV location.
    private func uploadBigForm() throws {
        let servers = try InteropServers.shared
        let path = directory.appendingPathComponent("big.bin").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertEqual(ftruncate(descriptor, off_t(1 << 30)), 0)
        close(descriptor)
        let name = "form-\(UUID().uuidString).bin"
        let request = FormDataRequest(url: servers.nginxURL("/upload/\(name)"))
        request.requestMethod = "PUT"
        request.setPostValue("a big one", forKey: "description")
        request.addFile(path, forKey: "file")
        request.timeOutSeconds = 60
        let progress = RecordingUploadProgress()
        request.uploadProgressDelegate = progress
        let sent = SentBytes()
        request.setBytesSentBlock { _, bytes, _ in sent.add(bytes) }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 201)
        let stored = try FileManager.default.attributesOfItem(atPath: servers.uploads.appendingPathComponent(name).path)
        let storedSize = try XCTUnwrap((stored[.size] as? NSNumber)?.int64Value)
        XCTAssertEqual(storedSize, request.postLength, "nginx stored the whole multipart body")
        XCTAssertGreaterThan(storedSize, 1 << 30)
        XCTAssertEqual(sent.total, storedSize, "upload progress counted every byte, once")
        XCTAssertEqual(progress.lastFraction, 1.0)
        ChildProcess.report(["bytes": "\(storedSize)"])
    }
}

/// Sums the bytes a block reports.
final class SentBytes: @unchecked Sendable {
    // @unchecked Sendable: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Int64 = 0
    func add(_ bytes: Int64) {
        lock.lock()
        value += bytes
        lock.unlock()
    }
    var total: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
