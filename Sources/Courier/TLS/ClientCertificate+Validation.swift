import Foundation

extension ClientCertificate {
    /// Fails when a file the identity needs is missing or cannot be read, naming the file: OpenSSL
    /// would say only that it could not load a certificate, once a connection is being made.
    /// Called under the request's lock before an attempt: a `stat` and an `access` per file.
    func validateFiles(url: URL) throws(HTTPRequestError) {
        let files: [(path: String, role: String)]
        switch self {
        case .pem(let certificate, let key, _):
            files =
                [(certificate, "client certificate file")] + (key.map { [($0, "client certificate key file")] } ?? [])
        case .pkcs12(let path, _):
            files = [(path, "PKCS#12 client certificate file")]
        }
        for file in files {
            guard let problem = Self.problem(reading: file.path) else { continue }
            let message =
                file.path.isEmpty ? "The \(file.role)'s path is empty" : "The \(file.role) \(file.path) \(problem)"
            throw HTTPRequestError(type: .internalErrorWhileBuildingRequest, message: message, url: url)
        }
    }

    /// Why `path` cannot be read as a file, or nil when it can.
    private static func problem(reading path: String) -> String? {
        if path.isEmpty { return "is empty" }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "does not exist" }
        if isDirectory.boolValue { return "is a directory" }
        guard access(path, R_OK) == 0 else { return "cannot be read (\(String(cString: strerror(errno))))" }
        return nil
    }
}
