import Courier
import Foundation

/// Who nginx's client-certificate listeners saw, read from their answer
/// (`NginxConfiguration.clientIdentityBody`).
struct ClientIdentity: Equatable {
    /// `$ssl_client_verify`: SUCCESS, FAILED:reason, or NONE.
    var verify: String
    /// The certificate's subject, "CN=Courier Client A"; empty when none was presented.
    var subject: String
    /// nginx's serial number of the connection the request came on.
    var connection: String
    /// Whether the TLS session was resumed from an earlier one.
    var sessionWasResumed: Bool

    /// The identity in `request`'s response, or nil when it is not one of these answers.
    init?(_ request: HTTPRequest) {
        guard request.responseStatusCode == 200, let body = request.responseString() else { return nil }
        var fields: [String: String] = [:]
        for line in body.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let verify = fields["verify"], let subject = fields["subject"], let connection = fields["connection"]
        else { return nil }
        self.verify = verify
        self.subject = subject
        self.connection = connection
        sessionWasResumed = fields["reused"] == "r"
    }
}
