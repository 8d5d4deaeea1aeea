import Foundation

/// The fuzzer's bytes, read as the pieces a target needs. Every target links this file.
struct FuzzInput {
    let bytes: [UInt8]

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    /// The bytes as text (invalid UTF-8 becomes U+FFFD, as `String(decoding:)` reads a header).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes split at LF (a CR before it is kept: the parsers see what a server sent).
    var lines: [[UInt8]] { bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init) }

    /// The bytes split at `separator`, as strings.
    func strings(separatedBy separator: UInt8) -> [String] {
        bytes.split(separator: separator, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Stops the run with a message libFuzzer shows, keeping the input as a reproducer: a
/// property a target checks did not hold.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
        abort()
    }
}

/// A fresh directory for targets that go through files, removed by the caller.
func fuzzTemporaryDirectory() -> String {
    var template = Array((NSTemporaryDirectory() + "/courier-fuzz-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(cString: made!)
}

/// Writes `bytes` to `path` with `mode`, replacing what was there.
func fuzzWriteFile(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    precondition(descriptor >= 0, "open \(path) failed")
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
        precondition(count > 0, "write failed")
        offset += count
    }
    fchmod(descriptor, mode)
    close(descriptor)
}
