import Courier
import Foundation

/// The body of `--data` and `--data-binary`, as curl sends them.
enum PostBody {
    /// Sets `parts` as the request's body: text and files with their line breaks removed
    /// (`--data @FILE`) are joined with "&"; a lone `--data-binary @FILE` is streamed from disk.
    /// Without a Content-Type of the user's, it is application/x-www-form-urlencoded, as curl's.
    static func apply(_ parts: [PostOptions.DataPart], to request: HTTPRequest) throws(UsageError) {
        if parts.count == 1, case .file(let path) = parts[0] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw UsageError("--data-binary: cannot read \(path)", command: "post")
            }
            request.postBodyFilePath = path
            request.shouldStreamPostDataFromDisk = true
        } else {
            var body = Data()
            for (index, part) in parts.enumerated() {
                if index > 0 { body.append(UInt8(ascii: "&")) }
                switch part {
                case .text(let text):
                    body.append(Data(text.utf8))
                case .fileWithoutLineBreaks(let path), .file(let path):
                    guard let contents = FileManager.default.contents(atPath: path) else {
                        throw UsageError("--data: cannot read \(path)", command: "post")
                    }
                    if case .file = part {
                        body.append(contents)
                    } else {
                        body.append(
                            contentsOf: contents.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") })
                    }
                }
            }
            request.postBody = body
        }
        if !parts.isEmpty { request.addRequestHeader("Content-Type", value: "application/x-www-form-urlencoded") }
    }
}
