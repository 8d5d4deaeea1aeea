import Courier
import Foundation

/// `courier post [OPTIONS] URL`: sends a form (`-F`) or a body (`--data`, `--data-binary`) and
/// writes the response body to standard output (or `-o FILE`) as it arrives. The upload's
/// progress bar and a status line go to standard error.
@MainActor
struct PostCommand {
    let url: URL
    var options: PostOptions

    func run() -> Never {
        var options = options
        let request: HTTPRequest
        do throws(UsageError) {
            try options.request.prepareRun(command: "post")
            request = try Self.makeRequest(url: url, options: options)
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        let output: FileHandle
        if let outputFile = options.outputFile {
            guard FileManager.default.createFile(atPath: outputFile, contents: nil),
                let handle = FileHandle(forWritingAtPath: outputFile)
            else {
                Console.error("courier: cannot write \(outputFile)")
                exit(1)
            }
            output = handle
        } else {
            output = .standardOutput
        }
        let display = options.request.drawsProgress ? ProgressDisplay() : nil
        request.uploadProgressDelegate = display?.bar
        request.callbackQueue = .main
        // The response body is written as it arrives, inflated: a large one is never held whole.
        request.shouldWaitToInflateCompressedResponses = false
        request.setDataReceivedBlock { _, data in try? output.write(contentsOf: data) }
        let startedAt = Date()
        let finish: @Sendable (HTTPRequest) -> Void = { request in
            MainActor.assumeIsolated {
                display?.finish()
                let status = Self.statusLine(of: request, seconds: Date().timeIntervalSince(startedAt))
                if !options.request.isQuiet || request.error != nil || request.responseStatusCode >= 400 {
                    Console.error(status)
                }
                exit(request.error == nil && request.responseStatusCode < 400 ? 0 : 1)
            }
        }
        request.setCompletionBlock(finish)
        request.setFailedBlock(finish)
        InterruptHandler.install {
            display?.clear()
            Console.error("interrupted: \(request.requestMethod) \(CredentialMask.url(url.absoluteString))")
            exit(InterruptHandler.exitStatus)
        }
        request.startAsynchronous()
        withExtendedLifetime(request) { dispatchMain() }
    }

    /// The request `options` describe, its body checked before anything is sent.
    static func makeRequest(url: URL, options: PostOptions) throws(UsageError) -> HTTPRequest {
        let request: HTTPRequest
        if !options.formParts.isEmpty {
            for case .file(_, let path, _, _) in options.formParts
            where !FileManager.default.isReadableFile(atPath: path) {
                throw UsageError("-F: cannot read \(path)", command: "post")
            }
            request = FormRequestBuilder.request(url: url, parts: options.formParts)
        } else {
            request = HTTPRequest(url: url)
            try PostBody.apply(options.dataParts, to: request)
        }
        request.requestMethod = options.method ?? "POST"
        options.request.configure(request)
        return request
    }

    /// "POST http://host/form: 201 Created, 1234 bytes sent, 56 received in 0.012 s".
    static func statusLine(of request: HTTPRequest, seconds: Double) -> String {
        let url = request.originalURL ?? request.url
        let target = "\(request.requestMethod) \(CredentialMask.url(url.absoluteString))"
        if let error = request.error, request.responseStatusCode == 0 {
            return "FAIL \(target): \(ReportFormatter.reason(for: error))"
        }
        let status = ReportFormatter.reason(
            forStatus: request.responseStatusCode, statusLine: request.responseStatusMessage)
        let figures =
            "\(status), \(request.totalBytesSent) bytes sent, \(request.totalBytesRead) received in "
            + String(format: "%.3f s", seconds)
        if let error = request.error { return "FAIL \(target): \(figures): \(ReportFormatter.reason(for: error))" }
        return "\(request.responseStatusCode < 400 ? "ok  " : "err ") \(target): \(figures)"
    }
}
