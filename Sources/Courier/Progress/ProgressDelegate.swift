/// Hears how far requests and queues have got. Every method has a default that does nothing.
///
/// Set as a request's or a `NetworkQueue`'s `downloadProgressDelegate` or
/// `uploadProgressDelegate` (held weakly); called on the same queue as the request's or queue's
/// other callbacks. Byte progress is coalesced: a call may cover many chunks.
public protocol ProgressDelegate: AnyObject {
    /// The fraction done, 0…1: for a request, its own bytes; for a queue, all of its requests'.
    /// Never above 1.0, and exactly 1.0 when a request finishes.
    func setProgress(_ progress: Double)
    /// More bytes arrived (negative when an attempt restarts and its bytes no longer count).
    func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64)
    /// More bytes were sent (negative when an attempt restarts).
    func request(_ request: HTTPRequest, didSendBytes bytes: Int64)
    /// The expected download grew (or shrank, when it was corrected) by `bytes`.
    func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64)
    /// The expected upload grew (or shrank) by `bytes`.
    func request(_ request: HTTPRequest, incrementUploadSizeBy bytes: Int64)
}

extension ProgressDelegate {
    /// Does nothing: the default.
    public func setProgress(_ progress: Double) {}
    /// Does nothing: the default.
    public func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64) {}
    /// Does nothing: the default.
    public func request(_ request: HTTPRequest, didSendBytes bytes: Int64) {}
    /// Does nothing: the default.
    public func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64) {}
    /// Does nothing: the default.
    public func request(_ request: HTTPRequest, incrementUploadSizeBy bytes: Int64) {}
}
