import Foundation

/// A bound pair of streams, which Foundation on Linux lacks (`Stream.getBoundStreams`): what is
/// written to `output` can be read from `input`. For a body written while it is sent, as with
/// NSURLConnection:
///
/// ```swift
/// final class Pair: @unchecked Sendable {  // read by Courier, written by your thread
///     let input: InputStream, output: OutputStream
///     init(_ pair: (input: InputStream, output: OutputStream)) { (input, output) = pair }
/// }
/// let pair = Pair(makeBoundStreams(bufferSize: 64 * 1024))
/// request.setPostBodyStream(length: nil) { pair.input }
/// request.startAsynchronous()
/// // write the body to pair.output (it comes open) from a thread of yours, then:
/// pair.output.close()
/// ```
///
/// Streams are not `Sendable`, so the closure reaches them through a box of yours.
///
/// The pair is an operating-system pipe: `input`'s `read` blocks until data arrives or `output`
/// is closed; `output`'s `write` blocks while `bufferSize` bytes (rounded up to a page) wait
/// unread. A bound pair can be read once: a body that must be sent again (a 307, an
/// authentication retry) fails clearly instead of resending a part.
public func makeBoundStreams(bufferSize: Int) -> (input: InputStream, output: OutputStream) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else {
        preconditionFailure("makeBoundStreams: pipe() failed: \(String(cString: strerror(errno)))")
    }
    defer {
        close(descriptors[0])
        close(descriptors[1])
    }
    // Linux rounds the capacity up to a page; failing to set it leaves the default 64 KiB.
    _ = fcntl(descriptors[1], pipeSizeCommand, Int32(clamping: max(bufferSize, 4096)))
    // Opening the descriptors' /proc entries gives the streams their own descriptors on the
    // same pipe, so the streams can open and close them as files.
    let input = InputStream(fileAtPath: "/proc/self/fd/\(descriptors[0])")
    let output = OutputStream(toFileAtPath: "/proc/self/fd/\(descriptors[1])", append: true)
    guard let input, let output else { preconditionFailure("makeBoundStreams: could not make the streams") }
    // The files are opened when the streams are: open them now, while the descriptors exist.
    input.open()
    output.open()
    return (input, output)
}

/// `F_SETPIPE_SZ` from <fcntl.h> (Linux), which Swift's Glibc module does not export.
private let pipeSizeCommand: Int32 = 1031
