import Courier
import Foundation

/// One run of `courier s3`: sends the action's requests one after another, prints what `aws s3`
/// prints, and knows how to stop what is running when Ctrl-C comes.
@MainActor
final class S3Session {
    let options: S3CommandOptions
    /// True once Ctrl-C stopped the run: it then exits 130, whatever the action's outcome.
    private(set) var isInterrupted = false
    /// Stops what runs now: a request's `cancel()`, or a multipart upload's, which aborts the
    /// upload on the service so that its parts are not kept (and billed).
    var cancelRunning: (() -> Void)?
    /// The bar of a `cp`, while one runs.
    var display: ProgressDisplay?

    init(options: S3CommandOptions) {
        self.options = options
    }

    func perform(_ action: S3Action) async -> Int32 {
        var status: Int32
        switch action {
        case .list(let location): status = await list(location)
        case .upload(let file, let location): status = await upload(file, to: location)
        case .download(let location, let destination): status = await download(location, to: destination)
        case .remove(let location):
            status = await simple(S3ObjectRequest.delete(bucket: location.bucket, key: location.key)) { failure in
                failure.map { "delete failed: \(location) \($0)" } ?? "delete: \(location)"
            }
        case .makeBucket(let bucket):
            status = await simple(S3BucketRequest.create(bucket: bucket)) { failure in
                failure.map { "make_bucket failed: s3://\(bucket) \($0)" } ?? "make_bucket: \(bucket)"
            }
        case .removeBucket(let bucket):
            status = await simple(S3BucketRequest.delete(bucket: bucket)) { failure in
                failure.map { "remove_bucket failed: s3://\(bucket) \($0)" } ?? "remove_bucket: \(bucket)"
            }
        case .presign(let location): status = presign(location)
        }
        if let lost = Console.outputFailure {
            Console.error("courier: the output was not all written to standard output: \(lost)")
            status = 1
        }
        return status
    }

    /// Ctrl-C: the bar goes, what runs is stopped, and the run exits 130 once it has stopped (at
    /// once when nothing runs).
    func interrupt() {
        isInterrupted = true
        display?.clear()
        Console.error("interrupted")
        guard let cancelRunning else { exit(InterruptHandler.exitStatus) }
        cancelRunning()
    }

    // MARK: - Requests

    /// Sends `request` with the command line's request options (`configures`: false for a copy
    /// of a request that has them already); returns why it failed, or nil.
    func send(_ request: S3Request, configures: Bool = true) async -> HTTPRequestError? {
        if configures { configure(request) }
        cancelRunning = { request.cancel() }
        defer { cancelRunning = nil }
        do {
            _ = try await request.response()
            return nil
        } catch {
            return error
        }
    }

    /// Sets the command line's request options on `request` (any a multipart upload makes too).
    nonisolated static func configure(_ request: S3Request, with options: RequestOptions) {
        options.configure(request)
        if options.timeoutSeconds == nil { request.timeOutSeconds = S3CommandOptions.defaultTimeoutSeconds }
    }

    func configure(_ request: S3Request) { Self.configure(request, with: options.request) }

    /// Sends a request whose only result is a line: `line(nil)` for success (on standard output,
    /// unless `-q`), `line(reason)` for a failure (on standard error).
    private func simple(_ request: S3Request, line: (String?) -> String) async -> Int32 {
        if let error = await send(request) {
            Console.error(line(Self.reason(for: error)))
            return 1
        }
        if !options.request.isQuiet { Console.out(line(nil)) }
        return 0
    }

    private func presign(_ location: S3Location) -> Int32 {
        let request = S3ObjectRequest(bucket: location.bucket, key: location.key)
        do {
            Console.out(try request.presignedURL(expiresIn: options.expiresIn).absoluteString)
            return 0
        } catch {
            Console.error("presign failed: \(location) \(Self.reason(for: error))")
            return 1
        }
    }

    /// What a failure says: S3's code and message when the service answered with an error
    /// document ("NoSuchKey: The specified key does not exist."), else Courier's description.
    static func reason(for error: HTTPRequestError) -> String {
        if let problem = error.underlyingError as? S3Error {
            return problem.message.isEmpty ? "(\(problem.code))" : "(\(problem.code)) \(problem.message)"
        }
        return ReportFormatter.reason(for: error)
    }

    /// A path as `aws s3` shows it: a relative one starts with "./".
    static func displayPath(_ path: String) -> String {
        path.hasPrefix("/") || path.hasPrefix("./") || path.hasPrefix("../") ? path : "./" + path
    }
}
