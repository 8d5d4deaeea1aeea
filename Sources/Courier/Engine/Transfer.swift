import CCurl
import Foundation
import Synchronization

/// Receives what one transfer produces. Called on the engine thread: implementations record
/// facts and hand user-visible work to a callback queue; they never block.
protocol TransferSink: AnyObject, Sendable {
    /// A final (non-1xx) response head arrived; the answer says where its body goes.
    func transfer(_ transfer: Transfer, didReceive head: ResponseHead) -> BodyHandling
    /// For a `.stream` plan: false when the request already holds too much undelivered; the
    /// transfer then pauses until `resume`.
    func transferHasRoom(_ transfer: Transfer) -> Bool
    /// A body chunk for a `.stream` plan.
    func transfer(_ transfer: Transfer, didReceiveChunk chunk: UnsafeRawBufferPointer)
    /// Body bytes received and sent so far (only when the configuration asks for progress; at
    /// most every `Transfer.progressInterval`).
    func transfer(_ transfer: Transfer, didProgressReceiving received: Int64, sending sent: Int64)
    /// The transfer ended, well or badly; the easy handle has already left the multi handle.
    func transfer(_ transfer: Transfer, didComplete outcome: TransferOutcome)
}

/// One attempt in flight: the context libcurl's callbacks receive, and the engine's record of it.
///
/// Made on the request's side and handed to `Engine.add`; from then on every mutable field is
/// touched only by the engine thread, which is why it is `@unchecked Sendable`. libcurl's
/// callbacks reach it through its `CallbackContext`, which the engine retains from before
/// `curl_multi_add_handle` until after `curl_multi_remove_handle`.
final class Transfer: @unchecked Sendable {
    let configuration: TransferConfiguration
    /// The request side; held strongly so a running request stays alive (see `CallbackContext`
    /// for why not weakly), dropped at completion.
    private(set) var sink: (any TransferSink)?
    /// This transfer's callback context while the engine holds it retained (see `CallbackContext`).
    var callbackContext: Unmanaged<CallbackContext>?

    // Engine-thread state: only the engine thread touches it. Swift's dynamic exclusivity checks
    // stay on, though they run in every libcurl callback: turning them off for these fields
    // (@exclusivity(unchecked)) saved 1,870 instructions of a 1 KiB GET's 117,000 (1.6%,
    // Benchmarks/), under the 2% an unsafe idiom must pay for itself.
    var handle: EasyHandle?
    /// Where the engine keeps it among the running transfers; -1 when not running.
    var runningIndex = -1
    var isRunning: Bool { runningIndex >= 0 }
    var headParser = ResponseHeadParser()
    var head: ResponseHead?
    var receivedBody = Data()
    /// The body in memory, when its Content-Length gave it a buffer from `BodyBufferPool`.
    var pooledBody: BodyBuffer?
    var bodyPlan: BodyPlan = .discard
    var fileWriter: FileBodyWriter?
    /// Undoes the body's content codings as it arrives, when the request asked for that.
    var inflater: InflaterChain?
    /// Why libcurl holds the transfer paused, if it does; the inactivity timeout does not run
    /// while it is paused.
    var pauses: PauseReasons = []
    /// Bytes this transfer may still move under the shared bandwidth budget; below zero after a
    /// chunk bigger than what it had (see `BandwidthBudget`).
    var bandwidthAllowance: Double = 0
    /// Reads the request body into libcurl's buffer, when there is one.
    var bodyReader: (any BodyReader)?
    /// Monotonic nanoseconds of the last sign of progress, for the inactivity timeout.
    var lastActivity: UInt64 = 0
    /// Set when the engine ends the transfer itself (timeout, cancel, a callback's failure).
    var engineFailure: HTTPRequestError?
    /// Whether libcurl presents credentials in this transfer, and so may answer a 401 or 407
    /// itself before the response the request gets.
    let presentsCredentials: Bool
    /// A 401 or 407 head not yet handed to the request (see `TransferCallbacks.header`).
    var heldChallenge: ResponseHead?
    /// Whether the transfer may open a tunnel through a proxy (an https URL: CONNECT), whose
    /// response head libcurl passes to the header callback before the real one.
    let mayTunnel: Bool
    /// The tunnel's own response head has gone by.
    var passedTunnelHead = false

    /// Set from any thread when the request no longer wants this transfer; the engine then never
    /// starts it, even if the cancel command overtook the add.
    private let abandoned = Atomic<Bool>(false)

    /// The body bytes received, and handed to libcurl to send, so far: atomics because other
    /// threads read them while the transfer runs (`HTTPRequest.totalBytesRead`,
    /// `totalBytesSent`). The engine thread is their only writer, so a chunk costs a relaxed load
    /// and store (plain moves), where a lock or a progress report per chunk would cost the
    /// small-GET benchmark.
    private let received = Atomic<Int64>(0)
    private let sent = Atomic<Int64>(0)

    /// Body bytes received so far. Any thread.
    var bytesReceived: Int64 { received.load(ordering: .relaxed) }
    /// Body bytes handed to libcurl to send so far. Any thread.
    var uploadOffset: Int64 { sent.load(ordering: .relaxed) }

    /// Adds body bytes received. Engine thread only.
    @inline(__always)
    func countReceived(_ count: Int) {
        received.store(received.load(ordering: .relaxed) &+ Int64(count), ordering: .relaxed)
    }

    /// Moves the upload offset (to 0 when the body is sent again). Engine thread only.
    @inline(__always)
    func setUploadOffset(_ offset: Int64) {
        sent.store(offset, ordering: .relaxed)
    }

    // Sequentially consistent: `adopt` relies on seeing a cancel's flag once the cancel removed
    // the partial file, across threads.
    func abandon() { abandoned.store(true, ordering: .sequentiallyConsistent) }
    var isAbandoned: Bool { abandoned.load(ordering: .sequentiallyConsistent) }

    /// Takes the configuration over: the attempt's set-up made it for this transfer alone, and a
    /// copy of it and the release of the original cost ~400 instructions (20 reference counts).
    /// Inlined: as a call, the optimizer turned the consuming parameter back into a borrowed
    /// one and copied it after all.
    @inline(__always)
    init(configuration: consuming TransferConfiguration, sink: any TransferSink) {
        presentsCredentials = configuration.authentication?.presentsCredentials ?? false
        mayTunnel = configuration.url.hasPrefixIgnoringASCIICase("https:")
        let keepsBody = configuration.expectsBodyInMemory
        self.configuration = configuration
        self.sink = sink
        if keepsBody { receivedBody = Data(capacity: Self.smallBodyRoom) }
    }

    /// Room made for a body when the transfer is made, on the thread that usually frees the
    /// response too. Made on the engine thread as the first piece arrived, a small body was
    /// freed into the engine thread's malloc arena from the callback thread, which took that
    /// arena's lock while libcurl held it (see BodyBufferPool).
    static let smallBodyRoom = 2048

    /// Follows the plan for the body of the head that just arrived. Engine thread only.
    /// Whether `head` is the proxy's answer to this transfer's CONNECT rather than the response:
    /// libcurl has set `CURLINFO_HTTP_CONNECTCODE` (reset for each transfer, so 0 on a reused
    /// tunnel) by the time the CONNECT response's head is complete. A 407 is delivered: the
    /// request answers the proxy's challenge (see `outcome(from:code:)`). Engine thread.
    func isTunnelHead(_ head: ResponseHead) -> Bool {
        guard mayTunnel, !passedTunnelHead, head.statusCode != 407, let handle else { return false }
        guard (200..<300).contains(head.statusCode), handle.info(long: CURLINFO_HTTP_CONNECTCODE) == head.statusCode
        else { return false }
        passedTunnelHead = true
        return true
    }

    /// Hands a final head to the request and adopts its body plan; false (with `engineFailure`
    /// set) when the plan cannot be followed. Engine thread.
    func deliver(_ head: ResponseHead) -> Bool {
        let handling = sink?.transfer(self, didReceive: head) ?? BodyHandling(.discard)
        do throws(HTTPRequestError) {
            try adopt(handling)
        } catch {
            engineFailure = error
            return false
        }
        return true
    }

    /// The held challenge is the response after all: libcurl did not answer it.
    func deliverHeldChallenge() -> Bool {
        guard let head = heldChallenge else { return true }
        heldChallenge = nil
        return deliver(head)
    }

    func adopt(_ handling: BodyHandling) throws(HTTPRequestError) {
        bodyPlan = handling.plan
        // Inflater traps on a negative bound, and this runs inside libcurl's header callback.
        inflater = handling.inflationLimit.map {
            InflaterChain(contentEncodings: head?.headerBlock.values(of: "Content-Encoding") ?? [], limit: max(0, $0))
        }
        if handling.plan == .memory, inflater == nil, let length = head?.contentLength,
            length > Self.smallestBodyReservation, length <= Self.largestBodyReservation
        {
            // Room for the whole body at once: grown piece by piece, a 64 KiB body was copied
            // again at each growth (and ran 40% slower). A small body arrives in one piece and
            // is cheaper appended. Pooled memory where the length allows (see BodyBufferPool).
            pooledBody = BodyBufferPool.shared.take(atLeast: Int(length))
            if pooledBody == nil { receivedBody = Data(capacity: Int(length)) }
        }
        if case .file(let path, let appending) = handling.plan {
            fileWriter = try FileBodyWriter(path: path, appending: appending)
            // A cancel that came while the head was handed over (the request's headers callback
            // may run before this line) has already removed the partial file; the one just made
            // must go too. The flag is set before that removal, so checking after opening leaves
            // no window in which a file is made that nobody removes.
            if isAbandoned, !appending {
                fileWriter = nil
                unlink(path)
            }
        }
    }

    /// Hands body bytes (already inflated, if the request asked) to where the plan says.
    func store(_ bytes: UnsafeRawBufferPointer) throws(HTTPRequestError) {
        switch bodyPlan {
        case .memory:
            if pooledBody?.append(bytes) == true { return }
            if let pooled = pooledBody {
                // More than the Content-Length said: on in memory of its own.
                receivedBody = Data(bytes: pooled.start, count: pooled.count)
                pooled.recycle()
                pooledBody = nil
            }
            receivedBody.append(bytes.bindMemory(to: UInt8.self))
        case .discard: break
        case .file: try fileWriter?.write(bytes)
        case .stream: sink?.transfer(self, didReceiveChunk: bytes)
        }
    }

    /// The body received in memory, handed over once, at completion.
    func takeBody() -> Data {
        guard let pooled = pooledBody else {
            defer { receivedBody = Data() }
            return receivedBody
        }
        pooledBody = nil
        return pooled.data()
    }

    deinit {
        pooledBody?.recycle()
    }

    /// Hands the outcome to the sink and lets go of it; a download file is closed first, so the
    /// request can move it into place. Engine thread only.
    func complete(_ outcome: TransferOutcome) {
        fileWriter?.close()
        fileWriter = nil
        bodyReader?.close()
        bodyReader = nil
        let sink = self.sink
        self.sink = nil
        sink?.transfer(self, didComplete: outcome)
    }

    /// The bodies given their full room up front: larger than one piece usually is, and not so
    /// large that a Content-Length (the server's word only) could claim much memory.
    static let smallestBodyReservation: Int64 = 16 << 10
    static let largestBodyReservation: Int64 = 64 << 20

    /// When progress was last reported to the sink.
    private var lastProgressReport: UInt64 = 0
    /// Progress is reported at most this often (10 ms); the request coalesces further.
    static let progressInterval: UInt64 = 10_000_000

    /// On the coarse clock (a few milliseconds' resolution): it runs in every libcurl callback,
    /// and the inactivity timeout and the 10 ms progress interval need no finer.
    func noteActivity() {
        lastActivity = MonotonicClock.coarseNanoseconds()
    }

    /// Called after bytes moved: tells the sink if it asked and enough time has passed.
    func reportProgressIfDue() {
        guard configuration.reportsProgress, lastActivity &- lastProgressReport >= Self.progressInterval else { return }
        lastProgressReport = lastActivity
        sink?.transfer(self, didProgressReceiving: bytesReceived, sending: uploadOffset)
    }

    var url: URL? { URL(string: configuration.url) }
}

/// Monotonic time.
enum MonotonicClock {
    /// A vDSO call that reads the CPU's clock: 22 ns on this VM, ~50 ns under load.
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// The same clock as of the kernel's last tick (4 ms resolution here): a vDSO call that
    /// reads memory only, 5.5 ns. For the transfers' activity, noted in every libcurl callback
    /// (~10 per small GET): never compare it with `nanoseconds()`, which runs ahead of it.
    static func coarseNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Why a transfer is paused.
struct PauseReasons: OptionSet, Sendable {
    let rawValue: Int
    /// The request holds too much body it has not delivered to its data delegate yet.
    static let consumer = PauseReasons(rawValue: 1)
    /// The body's producer has nothing ready yet.
    static let producer = PauseReasons(rawValue: 2)
    /// The shared bandwidth budget is spent for now.
    static let bandwidth = PauseReasons(rawValue: 4)
}
