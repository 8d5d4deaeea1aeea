import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A data delegate that collects the body, optionally slowly.
final class CollectingDataDelegate: HTTPRequestDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `collected` and `chunks` are guarded by `lock`.
    private let lock = NSLock()
    private var collected = Data()
    private var count = 0
    private var total = 0
    let keeps: Bool
    let pause: TimeInterval

    init(keeps: Bool = true, pause: TimeInterval = 0) {
        self.keeps = keeps
        self.pause = pause
    }

    func request(_ request: HTTPRequest, didReceive data: Data) {
        lock.lock()
        if keeps { collected.append(data) }
        count += 1
        total += data.count
        lock.unlock()
        if pause > 0 { Thread.sleep(forTimeInterval: pause) }
    }

    var body: Data {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    var chunks: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    var bytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}

final class DataChunkController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func chunk(_ request: HTTPRequest, _ data: Data) { log.add("\(data.count)") }
}

final class DataDelegateTests: XCTestCase {
    func testThatADataDelegateGetsTheWholeBodyAndNothingIsStored() throws {
        let delegate = CollectingDataDelegate()
        let request = HTTPRequest(url: Fixture.url(.bytes(2_000_000)))
        request.delegate = delegate
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-data-\(UUID().uuidString)")
        request.downloadDestinationPath = directory.path
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(delegate.body, TestServer.deterministicBytes(count: 2_000_000))
        XCTAssertEqual(request.responseData(), Data(), "the body is not stored")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "nor written")
        XCTAssertEqual(request.totalBytesRead, 2_000_000)
    }

    func testThatTheBlockAndTheSelectorSeeTheBodyToo() {
        let collected = Locked<Data>(Data())
        let request = HTTPRequest(url: Fixture.url(.chunked(70_000)))
        request.setDataReceivedBlock { _, data in collected.withLock { $0.append(data) } }
        request.startSynchronous()
        XCTAssertEqual(collected.current, TestServer.deterministicBytes(count: 70_000))

        let controller = DataChunkController()
        let withSelector = HTTPRequest(url: Fixture.url(.bytes(1000)))
        withSelector.delegate = SelectorDataHolder(controller)
        withSelector.setDidReceiveDataSelector(DataChunkController.chunk)
        withSelector.startSynchronous()
        XCTAssertEqual(controller.log.all, [], "the delegate is not a DataChunkController")

        let direct = HTTPRequest(url: Fixture.url(.bytes(1000)))
        let target = DataChunkTarget()
        direct.delegate = target
        direct.setDidReceiveDataSelector(DataChunkTarget.chunk)
        direct.startSynchronous()
        XCTAssertEqual(target.log.all.compactMap(Int.init).reduce(0, +), 1000)
        XCTAssertEqual(direct.responseData(), Data())
    }

    func testThatASlowConsumerPausesTheTransferInsteadOfBuffering() throws {
        try skipIfQuickRun()
        if ChildProcess.role == "slow-consumer" {
            try runSlowConsumer()
            return
        }
        let result = try ChildProcess.run(
            test: "CourierTests.DataDelegateTests/testThatASlowConsumerPausesTheTransferInsteadOfBuffering",
            role: "slow-consumer", timeout: 300, measuresMemory: true)
        XCTAssertEqual(result.status, 0, result.output)
        let peak = try XCTUnwrap(result.report("slow-consumer").peakRSSMiB)
        XCTAssertLessThan(peak, 64, "peak RSS in MiB with a 200 MiB body and a slow delegate")
    }

    /// The child's part: 200 MiB through a delegate that sleeps on every chunk.
    private func runSlowConsumer() throws {
        let size = 200 * 1024 * 1024
        let delegate = CollectingDataDelegate(keeps: false, pause: 0.0005)
        let request = HTTPRequest(url: Fixture.url(.bytes(size)))
        request.callbackQueue = DispatchQueue(label: "slow consumer")
        request.delegate = delegate
        request.timeOutSeconds = 30
        let started = Date()
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(delegate.bytes, size)
        ChildProcess.report([
            "chunks": "\(delegate.chunks)", "seconds": String(format: "%.1f", Date().timeIntervalSince(started)),
        ])
    }
}

final class SelectorDataHolder: HTTPRequestDelegate {
    let controller: DataChunkController
    init(_ controller: DataChunkController) { self.controller = controller }
}

final class DataChunkTarget: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func chunk(_ request: HTTPRequest, _ data: Data) { log.add("\(data.count)") }
}
