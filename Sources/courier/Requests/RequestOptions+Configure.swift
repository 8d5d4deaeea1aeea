import Courier
import Foundation

extension RequestOptions {
    /// Sets what these options ask for on one request: headers, credentials, proxy, trust,
    /// timeout and redirect limit. The rest is Courier's defaults: certificates verified,
    /// credentials never sent to another host after a redirect, cookies kept for the run.
    func configure(_ request: HTTPRequest) {
        for header in headers { request.addRequestHeader(header.name, value: header.value) }
        if let userAgent { request.userAgentString = userAgent }
        if let username {
            request.username = username
            request.password = password ?? ""
        }
        proxy?.configure(request)
        if let caBundlePath { request.caBundlePath = caBundlePath }
        if isInsecure { request.validatesSecureCertificate = false }
        if let timeoutSeconds { request.timeOutSeconds = timeoutSeconds }
        if let maxRedirects { request.maxRedirects = maxRedirects }
    }

    /// What holds for the whole run, set once before the first request: the shared bandwidth
    /// budget and the debug log. Also asks for a missing `-u` password, on the terminal.
    mutating func prepareRun(command: String) throws(UsageError) {
        if let bandwidthLimit { HTTPRequest.maxBandwidthPerSecond = bandwidthLimit }
        if isVerbose {
            // Courier masks credentials in its log lines (Authorization values, passwords in URLs).
            HTTPRequest.logHandler = { line in Console.error("* " + line) }
        }
        if let username, password == nil {
            guard let typed = PasswordPrompt.ask("Enter the password for \(username): ") else {
                throw UsageError(
                    "-u \(username) gives no password, and there is no terminal to ask for one "
                        + "(give -u \(username):PASSWORD)", command: command)
            }
            password = typed
        }
        if let caBundlePath, !FileManager.default.isReadableFile(atPath: caBundlePath) {
            throw UsageError("--cacert: cannot read \(caBundlePath)", command: command)
        }
    }
}
