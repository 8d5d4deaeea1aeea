import Foundation

/// Courier's version, as sent in its default User-Agent.
public let courierVersion = "0.1.0"

/// Process-wide defaults, behind one lock (Swift 6 forbids unguarded mutable statics).
struct ClassSettings {
    var timeOutSeconds: TimeInterval = 10
    var userAgentString: String?
    var callbackQueue: DispatchQueue = .main
    var maxInflatedBytes: Int64 = 1 << 30
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

    /// Courier's own User-Agent.
    static let builtInUserAgent = "Courier/\(courierVersion) (Linux)"
    /// The header line for it, made once.
    static let builtInUserAgentLine = "User-Agent: " + builtInUserAgent
}
