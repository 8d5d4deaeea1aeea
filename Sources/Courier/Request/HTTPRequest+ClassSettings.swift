import Foundation

/// Courier's version, as sent in its default User-Agent.
public let courierVersion = "0.1.0"

/// Process-wide defaults, behind one lock (Swift 6 forbids unguarded mutable statics).
struct ClassSettings {
    var timeOutSeconds: TimeInterval = 10
    var userAgentString: String?
    var callbackQueue: DispatchQueue = .main
    var maxInflatedBytes: Int64 = 1 << 30
    var maxIdleConnections = 64
    /// `HTTPRequest.defaultCache`: the download cache new requests start with.
    var downloadCache: (any CacheDelegate)?
}

extension HTTPRequest {
    static let classSettings = Locked(ClassSettings())

    /// The `timeOutSeconds` new requests start with (10).
    public class var defaultTimeOutSeconds: TimeInterval {
        get { classSettings.withLock { $0.timeOutSeconds } }
        set { classSettings.withLock { $0.timeOutSeconds = newValue } }
    }

    /// The User-Agent sent when neither the headers nor `userAgentString` give one; nil means
    /// Courier's own, "Courier/VERSION (Linux)".
    public class var defaultUserAgentString: String? {
        get { classSettings.withLock { $0.userAgentString } }
        set { classSettings.withLock { $0.userAgentString = newValue } }
    }

    /// The `callbackQueue` new requests start with: `DispatchQueue.main` unless set.
    public class var defaultCallbackQueue: DispatchQueue {
        get { classSettings.withLock { $0.callbackQueue } }
        set { classSettings.withLock { $0.callbackQueue = newValue } }
    }

    /// Idle connections kept open across the process for reuse (64); beyond it the oldest close,
    /// so a burst of a thousand downloads leaves no thousand sockets behind. Values below 1 count
    /// as 1 (libcurl's `CURLMOPT_MAXCONNECTS` reads 0 as "no limit of mine"). A lower value takes
    /// effect as connections are given back after their transfers. Any thread.
    public class var maxIdleConnections: Int {
        get { classSettings.withLock { $0.maxIdleConnections } }
        set {
            classSettings.withLock { $0.maxIdleConnections = max(1, newValue) }
            // Outside the lock: the engine reads the setting back on its own thread.
            Engine.shared.connectionCapChanged()
        }
    }

    /// Courier's own User-Agent.
    static let builtInUserAgent = "Courier/\(courierVersion) (Linux)"
    /// The header line for it, made once.
    static let builtInUserAgentLine = "User-Agent: " + builtInUserAgent
}
