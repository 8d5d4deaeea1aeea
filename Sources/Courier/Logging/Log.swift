import Foundation
import Synchronization

/// Courier's debug log: request lines, headers (credentials masked), redirects, retries and
/// timing, sent to `HTTPRequest.logHandler`, or to standard error when `COURIER_DEBUG=1` is in
/// the environment (ASI's DEBUG_* switches). Costs one atomic load per call site when off.
enum Log {
    private static let handler = Locked<(@Sendable (String) -> Void)?>(nil)
    private static let enabled = Atomic<Bool>(environmentAsksForLogging)

    static let environmentAsksForLogging: Bool = {
        guard let value = ProcessInfo.processInfo.environment["COURIER_DEBUG"] else { return false }
        return !["", "0", "false", "no"].contains(value.lowercased())
    }()

    static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    static func setHandler(_ newHandler: (@Sendable (String) -> Void)?) {
        handler.withLock { $0 = newHandler }
        enabled.store(newHandler != nil || environmentAsksForLogging, ordering: .relaxed)
    }

    static var currentHandler: (@Sendable (String) -> Void)? { handler.current }

    /// Logs `message` when logging is on; the message is only built then.
    static func message(_ message: @autoclosure () -> String) {
        guard isEnabled else { return }
        let text = "[Courier] " + message()
        if let handler = handler.current {
            handler(text)
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    /// Header lines as they may be shown: credentials, session tokens and cookies masked; an
    /// Authorization value keeps its scheme ("Authorization: Basic ********").
    static func masked(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        let name = line[..<colon].lowercased()
        if credentialHeaders.contains(name) {
            return line[..<colon] + ": " + CredentialMask.authorizationValue(String(line[line.index(after: colon)...]))
        }
        guard cookieHeaders.contains(name) || tokenHeaders.contains(name) else { return line }
        return line[..<colon] + ": ********"
    }

    /// The Authorization and Proxy-Authorization lines an attempt presents through libcurl's
    /// credentials (`CURLOPT_USERNAME`/`CURLOPT_PASSWORD` with `CURLOPT_HTTPAUTH`, or the proxy
    /// ones), masked: libcurl writes those headers itself, so they are not among `headerLines`,
    /// and without these lines the log would show an authenticated attempt as one with none. A
    /// header of that name already in `headerLines` is the user's and goes out instead (libcurl
    /// adds none beside it), so it gets no second line.
    static func presentedCredentialLines(
        _ authentication: TransferAuthentication?, besides headerLines: [String]
    )
        -> [String]
    {
        guard let authentication, authentication.presentsCredentials else { return [] }
        let present = Set(headerLines.compactMap { line in line.firstIndex(of: ":").map { line[..<$0].lowercased() } })
        var lines: [String] = []
        for (name, credentials) in [
            ("Authorization", authentication.server), ("Proxy-Authorization", authentication.proxyCredentials),
        ] {
            guard let credentials, !present.contains(name.lowercased()) else { continue }
            lines.append(name + ": " + schemes(credentials.methods) + " ********")
        }
        return lines
    }

    /// "Basic", or "Basic, Digest or NTLM" when libcurl may answer with any of them: it then
    /// asks the server first and presents the scheme the challenge names.
    private static func schemes(_ methods: Int) -> String {
        let names = [
            (TransferCredentials.basic, "Basic"), (TransferCredentials.digest, "Digest"),
            (TransferCredentials.ntlm, "NTLM"),
        ].filter { methods & $0.0 != 0 }.map(\.1)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// A URL as it may be shown: its password masked (`CredentialMask.url`).
    static func masked(_ url: URL) -> String {
        CredentialMask.url(url.absoluteString)
    }

    private static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization"]
    private static let cookieHeaders: Set<String> = ["cookie", "set-cookie"]
    /// Temporary credentials' session token (S3Request sends it beside a masked Authorization):
    /// with the access key it is most of a credential, so it is masked whole.
    private static let tokenHeaders: Set<String> = ["x-amz-security-token"]
}

extension HTTPRequest {
    /// Receives Courier's debug log lines (request lines, headers with credentials masked,
    /// redirects, retries, timing); nil logs nothing unless `COURIER_DEBUG=1` is set, which logs
    /// to standard error. Called on whichever thread logs, the engine thread included: keep it quick.
    public class var logHandler: (@Sendable (String) -> Void)? {
        get { Log.currentHandler }
        set { Log.setHandler(newValue) }
    }
}
