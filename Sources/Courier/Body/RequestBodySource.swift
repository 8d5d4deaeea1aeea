import Foundation

/// What an attempt sends as its body, fixed when the attempt starts: pieces from memory and
/// files in order, or a stream a producer makes for each attempt.
enum RequestBodySource: Sendable {
    /// Memory and files, sent in order; files are read as they are sent, never whole.
    case segments([BodySegment], length: Int64)
    /// A stream the producer makes anew for each attempt; nil length sends it chunked.
    case stream(length: Int64?, maker: StreamMaker)

    /// Bytes the body has, when known before sending.
    var length: Int64? {
        switch self {
        case .segments(_, let length): length
        case .stream(let length, _): length
        }
    }

    /// A body wholly in memory.
    static func data(_ data: Data) -> RequestBodySource {
        .segments([.data(data)], length: Int64(data.count))
    }
}

/// One piece of a body.
enum BodySegment: Sendable {
    case data(Data)
    /// `length` bytes of a file from `offset`: the whole file (offset 0, the size it had when the
    /// attempt started), or a multipart upload's part.
    case file(path: String, offset: Int64 = 0, length: Int64)
}

/// The outcome of filling libcurl's buffer from a body.
enum BodyReadResult {
    /// This many bytes were written; 0 means the body has ended.
    case bytes(Int)
    /// Nothing is ready yet: the transfer pauses until the producer has more.
    case pause
    /// The body cannot be read.
    case fail(HTTPRequestError)
}

/// Reads a body into libcurl's buffer on the engine thread.
protocol BodyReader: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyReadResult
    /// Goes back to the start, for a resend (a 307, an auth challenge); false if it cannot.
    func rewind() -> Bool
    /// Stops any work in the background; the transfer is over.
    func close()
}
