import Courier
import Foundation

extension RequestOptions {
    /// Sets what these options ask for on one request: headers, credentials, proxy, trust,
    /// timeout and redirect limit. The rest is Courier's defaults: certificates verified,
    /// credentials never sent to another host after a redirect, cookies kept for the run.
    func configure(_ request: HTTPRequest) {
        if let userAgent { request.userAgentString = userAgent }
        for header in headers {
            guard header.removes else {
                request.addRequestHeader(header.name, value: header.value)
                continue
            }
            switch header.name.lowercased() {
            // An empty agent makes the line "User-Agent:", which libcurl takes as "send none".
            case "user-agent": request.userAgentString = ""
            case "accept-encoding": request.allowCompressedResponse = false
            // Courier adds no other header; one the user does not give is not sent.
            default: break
            }
        }
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
        if let caBundlePath { try Self.checkCABundle(caBundlePath, command: command) }
    }

    /// Refuses a `--cacert` file that cannot be read, or holds no PEM certificate (a DER file,
    /// a key, /etc/hostname): libcurl would only fail each https transfer later, in words that
    /// blame the server's certificate.
    private static func checkCABundle(_ path: String, command: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let contents = FileManager.default.contents(atPath: path)
        else {
            throw UsageError("--cacert: cannot read \(path)", command: command)
        }
        let markers = ["-----BEGIN CERTIFICATE-----", "-----BEGIN TRUSTED CERTIFICATE-----"]
        guard markers.contains(where: { contents.range(of: Data($0.utf8)) != nil }) else {
            throw UsageError(
                "--cacert: \(path) is not a PEM CA bundle (no -----BEGIN CERTIFICATE----- in it)", command: command)
        }
    }
}
