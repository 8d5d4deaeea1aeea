import Foundation

/// Why the interop servers are not available. Every interop test fails with this error's
/// description, which says what to do.
enum InteropServersError: Error, CustomStringConvertible {
    /// A program the servers need is not installed.
    case missingTool(_ name: String, lookedIn: String)
    /// A set-up command (openssl, md5sum) exited with an error.
    case toolFailed(_ command: String, status: Int32, output: String)
    /// A server exited or did not accept connections in time; `log` is the end of its log.
    case serverDidNotStart(_ name: String, reason: String, log: String)
    /// The system refused a temporary directory or a socket.
    case system(_ what: String, errno: Int32)

    var description: String {
        switch self {
        case .missingTool(let name, let places):
            return "interop servers: \(name) not found (looked in \(places)); run scripts/setup.sh to install it"
        case .toolFailed(let command, let status, let output):
            return "interop servers: `\(command)` exited with status \(status): \(output)"
        case .serverDidNotStart(let name, let reason, let log):
            return "interop servers: \(name) did not start (\(reason)); run scripts/setup.sh if it is missing "
                + "a module or package. End of its log:\n\(log)"
        case .system(let what, let code):
            return "interop servers: \(what) failed: \(String(cString: strerror(code)))"
        }
    }
}
