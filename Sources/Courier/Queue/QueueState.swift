import Foundation

/// Everything mutable about a `NetworkQueue`, behind the queue's one lock.
struct QueueState {
    /// False until `go()`: nothing starts before.
    var isGoing = false
    var maxConcurrentRequests = 4
    /// Requests added and not yet given a slot (and HEAD probes), in the order they will run.
    var waiting = RequestDeque()
    /// The requests holding a slot: given one and not yet finished.
    var granted = GrantedSlots()
    /// How many requests hold a slot.
    var running: Int { granted.count }
    /// True once a waiting request was passed over for an unfinished dependency: from then on,
    /// every request that finishes makes the queue look for one that may run.
    var hasPassedOverRequests = false
    /// Threads asleep in `waitUntilAllOperationsAreFinished()` or
    /// `addOperations(_:waitUntilFinished:)`, woken when a request finishes.
    var waitingThreads = 0
    /// GETs whose sizes HEAD probes are learning (accurate progress), in the order they will
    /// run; they wait until every probe has answered, so the total is known before any byte.
    var probing: [HTTPRequest] = []
    /// How many of `probing` still wait for their probe's answer.
    var unansweredProbes = 0

    var requestsCount = 0
    var requestsFinished = 0
    var bytesDownloadedSoFar: Int64 = 0
    var totalBytesToDownload: Int64 = 0
    var bytesUploadedSoFar: Int64 = 0
    var totalBytesToUpload: Int64 = 0
    /// Bumped by `cancelAllOperations()`: requests added before no longer count toward progress.
    var generation = 0

    var callbackQueue: DispatchQueue {
        didSet { drainer = nil }
    }
    /// Drains the mailboxes of requests calling back on `callbackQueue`; made when first needed.
    var drainer: CallbackDrainer?
    weak var delegate: AnyObject?
    var selectors = QueueSelectors()
    weak var downloadProgressDelegate: (any ProgressDelegate)?
    weak var uploadProgressDelegate: (any ProgressDelegate)?
    var showAccurateProgress = false
    var shouldCancelAllRequestsOnFailure = true
    var userInfo: [String: any Sendable]?

    /// `allFinished()` callers, resumed once the queue is empty; and the `finishedRequests`
    /// streams, each given every request as it ends. Keyed by `nextAsyncWaiter`.
    var emptyWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var finishedStreams: [UInt64: AsyncStream<HTTPRequest>.Continuation] = [:]
    var nextAsyncWaiter: UInt64 = 0

    var reachabilityHost: String?
    /// True while requests are held because the reachability host cannot be reached: nothing
    /// new starts until it can.
    var isHeldForReachability = false
    /// Requests whose connection failed while the host was unreachable, to run again first.
    var held: [HTTPRequest] = []
    var reachabilityMonitor: Reachability?

    init(callbackQueue: DispatchQueue) {
        self.callbackQueue = callbackQueue
    }
}

/// A first-in-first-out list that can also take an element at its front (`addFirst`).
///
/// A slot is cleared when its request leaves, so the list never keeps a started request alive;
/// the cleared front is dropped once it is most of the storage.
struct RequestDeque {
    private var storage: [HTTPRequest?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }

    mutating func append(_ request: HTTPRequest) {
        storage.append(request)
    }

    mutating func prepend(_ request: HTTPRequest) {
        if head > 0 {
            head -= 1
            storage[head] = request
        } else {
            storage.insert(request, at: 0)
        }
    }

    mutating func popFirst() -> HTTPRequest? {
        guard head < storage.count else { return nil }
        let request = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return request
    }

    /// Removes and returns the first request for which `mayRun` is true. Nearly always the
    /// first one is: only a request with unfinished dependencies is passed over.
    mutating func popFirst(where mayRun: (HTTPRequest) -> Bool) -> HTTPRequest? {
        guard head < storage.count else { return nil }
        if let first = storage[head], mayRun(first) { return popFirst() }
        guard let index = storage[(head + 1)...].firstIndex(where: { $0.map(mayRun) ?? false }) else { return nil }
        return storage.remove(at: index)
    }

    /// Removes `request` if it is waiting; true if it was.
    mutating func remove(_ request: HTTPRequest) -> Bool {
        guard let index = storage[head...].firstIndex(where: { $0 === request }) else { return false }
        storage.remove(at: index)
        return true
    }

    mutating func removeAll() -> [HTTPRequest] {
        defer {
            storage.removeAll()
            head = 0
        }
        return storage[head...].compactMap { $0 }
    }
}

/// The requests holding a queue's slots, each knowing its place (`HTTPRequest.queueSlot`), so
/// giving and taking back a slot costs the same however many run. Under the queue's lock.
struct GrantedSlots {
    private(set) var requests: [HTTPRequest] = []

    var count: Int { requests.count }

    mutating func grant(_ request: HTTPRequest) {
        request.queueSlot = requests.count
        requests.append(request)
    }

    /// Takes back `request`'s slot: false if it held none. The last holder moves into its place.
    mutating func release(_ request: HTTPRequest) -> Bool {
        let index = request.queueSlot
        guard index >= 0, index < requests.count, requests[index] === request else { return false }
        let last = requests.removeLast()
        if last !== request {
            requests[index] = last
            last.queueSlot = index
        }
        request.queueSlot = -1
        return true
    }
}

/// The queue's selectors, erased: each checks its delegate's type before calling.
struct QueueSelectors {
    typealias RequestSelector = @Sendable (AnyObject, HTTPRequest) -> Void
    var requestDidStart: RequestSelector?
    var requestDidReceiveResponseHeaders: (@Sendable (AnyObject, HTTPRequest, HTTPHeaders) -> Void)?
    var requestWillRedirect: (@Sendable (AnyObject, HTTPRequest, URL) -> Void)?
    var requestDidFinish: RequestSelector?
    var requestDidFail: RequestSelector?
    var requestDidBecomeUnreachable: RequestSelector?
    var queueDidFinish: (@Sendable (AnyObject, NetworkQueue) -> Void)?
}
