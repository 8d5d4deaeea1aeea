import Courier
import CourierTestServer
import XCTest

/// A request subclass per endpoint that parses its response, as users write them.
final class EchoMethodRequest: HTTPRequest, @unchecked Sendable {
    // @unchecked Sendable: `parsedMethod` and `account` are guarded by `lock`.
    private let lock = NSLock()
    private var _parsedMethod: String?
    private var _account = ""

    var parsedMethod: String? {
        lock.lock()
        defer { lock.unlock() }
        return _parsedMethod
    }

    var account: String {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _account
        }
        set {
            lock.lock()
            _account = newValue
            lock.unlock()
        }
    }

    required init(url: URL) {
        super.init(url: url)
        addRequestHeader("Accept", value: "application/json")
    }

    override func requestFinished() {
        struct Body: Decodable { let method: String }
        guard let data = responseData(), let body = try? JSONDecoder().decode(Body.self, from: data) else {
            failWithError(HTTPRequestError(type: .unhandledException, message: "not JSON", url: url))
            return
        }
        lock.lock()
        _parsedMethod = body.method
        lock.unlock()
        super.requestFinished()
    }

    override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        (copy as? EchoMethodRequest)?.account = account
    }
}

final class ParsedValueDelegate: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func requestFinished(_ request: HTTPRequest) {
        log.add("finished with \((request as? EchoMethodRequest)?.parsedMethod ?? "nothing")")
    }
    func requestFailed(_ request: HTTPRequest) { log.add("failed: \(request.error!.message)") }
    func methodParsed(_ request: EchoMethodRequest) { log.add("selector sees \(request.parsedMethod ?? "nothing")") }
}

final class SubclassAndCopyTests: XCTestCase {
    func testThatASubclassParsesItsResponseBeforeTheDelegateHearsOfIt() {
        let delegate = ParsedValueDelegate()
        let request = EchoMethodRequest(url: Fixture.url(.echo))
        request.requestMethod = "PATCH"
        request.delegate = delegate
        request.startSynchronous()
        XCTAssertEqual(delegate.log.all, ["finished with PATCH"])

        let withSelector = EchoMethodRequest(url: Fixture.url(.echo))
        withSelector.delegate = delegate
        withSelector.setDidFinishSelector(ParsedValueDelegate.methodParsed)
        withSelector.startSynchronous()
        XCTAssertEqual(delegate.log.all.last, "selector sees GET")
    }

    func testThatASubclassCanTurnAFinishIntoAFailureOnce() {
        let delegate = ParsedValueDelegate()
        let request = EchoMethodRequest(url: Fixture.url(.bytes(10)))
        request.delegate = delegate
        let blocks = EventLog()
        request.setCompletionBlock { _ in blocks.add("completion") }
        request.setFailedBlock { _ in blocks.add("failed") }
        request.startSynchronous()
        XCTAssertEqual(delegate.log.all, ["failed: not JSON"])
        XCTAssertEqual(blocks.all, ["failed"])
        XCTAssertEqual(request.error?.type, .unhandledException)
        XCTAssertTrue(request.isFinished)
    }

    func testThatCopyKeepsTheSubclassAndItsConfigurationButNotBlocks() throws {
        let delegate = ParsedValueDelegate()
        let original = EchoMethodRequest(url: Fixture.url(.echo))
        original.requestMethod = "PUT"
        original.postBody = Data("copied body".utf8)
        original.addRequestHeader("X-Copied", value: "yes")
        original.userInfo = ["key": "value"]
        original.tag = 7
        original.timeOutSeconds = 3
        original.numberOfTimesToRetryOnTimeout = 2
        original.account = "alice"
        original.delegate = delegate
        original.setDidFinishSelector(ParsedValueDelegate.methodParsed)
        let blocks = EventLog()
        original.setCompletionBlock { _ in blocks.add("original's block") }
        original.startSynchronous()

        let copy = original.copy()
        let sameType: EchoMethodRequest = copy  // the copy has the subclass's type
        XCTAssertTrue(type(of: sameType) == EchoMethodRequest.self)
        XCTAssertFalse(copy === original)
        XCTAssertFalse(copy.isFinished)
        XCTAssertFalse(copy.complete)
        XCTAssertNil(copy.error)
        XCTAssertEqual(copy.responseStatusCode, 0)
        XCTAssertEqual(copy.retryCount, 0)
        XCTAssertEqual(copy.requestMethod, "PUT")
        XCTAssertEqual(copy.postBody, Data("copied body".utf8))
        XCTAssertEqual(copy.requestHeaders["X-Copied"], "yes")
        XCTAssertEqual(copy.userInfo?["key"] as? String, "value")
        XCTAssertEqual(copy.tag, 7)
        XCTAssertEqual(copy.timeOutSeconds, 3)
        XCTAssertEqual(copy.numberOfTimesToRetryOnTimeout, 2)
        XCTAssertEqual(copy.account, "alice", "the subclass's hook copied its own property")
        XCTAssertTrue(copy.delegate === delegate)

        copy.startSynchronous()
        XCTAssertEqual(try Echo(from: copy).bodyData, Data("copied body".utf8))
        XCTAssertEqual(delegate.log.all, ["selector sees PUT", "selector sees PUT"], "the selector was copied")
        XCTAssertEqual(blocks.all, ["original's block"], "blocks are not copied")
    }

    func testThatNSObjectsCopyGivesAnEqualRequest() {
        let original = HTTPRequest(url: Fixture.url(.echo))
        original.tag = 3
        let copy = (original as NSObject).copy() as? HTTPRequest
        XCTAssertEqual(copy?.tag, 3)
    }
}
