import Glibc

/// Why a ``TestServer`` could not be started.
public struct TestServerError: Error, Sendable, CustomStringConvertible {
    /// The system call (and context) that failed, e.g. `"bind 127.0.0.1:8080"`.
    public let operation: String
    /// The `errno` value the call reported.
    public let code: Int32

    /// Creates an error for a failed system call.
    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// A readable summary, e.g. `"bind 127.0.0.1:8080 failed: Address already in use (errno 98)"`.
    public var description: String {
        "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
