import Foundation

/// The persistent store's contents, as the JSON of the credential file:
/// `{"version": 1, "servers": [{protocol, host, port, realm?, user, password, domain?}],
/// "proxies": [{host, port, realm?, user, password, domain?}]}`.
///
/// Hosts are stored lower-cased, protocols lower-cased, and a server's port always explicit
/// (0 becomes the protocol's default), so a lookup compares plain values.
struct CredentialFile: Codable, Equatable, Sendable {
    struct Server: Codable, Equatable, Sendable {
        var `protocol`: String
        var host: String
        var port: Int
        var realm: String?
        var user: String
        var password: String
        var domain: String?
    }

    struct Proxy: Codable, Equatable, Sendable {
        var host: String
        var port: Int
        var realm: String?
        var user: String
        var password: String
        var domain: String?
    }

    static let currentVersion = 1

    var version = currentVersion
    var servers: [Server] = []
    var proxies: [Proxy] = []

    /// Reads `data`; the reason it cannot, in words, for `CredentialStoreError.damaged`.
    static func decode(_ data: Data) -> Result<CredentialFile, DecodeFailure> {
        do {
            let file = try JSONDecoder().decode(CredentialFile.self, from: data)
            guard file.version == currentVersion else {
                return .failure(DecodeFailure(reason: "it is version \(file.version); this Courier reads version 1"))
            }
            return .success(file)
        } catch {
            return .failure(DecodeFailure(reason: "it is not the JSON Courier writes (\(Self.describe(error)))"))
        }
    }

    struct DecodeFailure: Error {
        let reason: String
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context): context.debugDescription
        case .keyNotFound(let key, _): "no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "a wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}

extension CredentialFile {
    /// The server entry for the space, the one saved for exactly `realm` first, else one saved
    /// without a realm (it applies to every realm of that server).
    func server(protocol scheme: String, host: String, port: Int, realm: String?) -> Server? {
        let matches = servers.filter { $0.protocol == scheme && $0.host == host && $0.port == port }
        return matches.first { $0.realm == realm } ?? matches.first { $0.realm == nil }
    }

    /// The proxy entry, with the same realm rule as `server`.
    func proxy(host: String, port: Int, realm: String?) -> Proxy? {
        let matches = proxies.filter { $0.host == host && $0.port == port }
        return matches.first { $0.realm == realm } ?? matches.first { $0.realm == nil }
    }
}
