// A form upload with progress, as a browser posts one: text fields and a file in a
// multipart/form-data body, the file streamed from disk (never read whole), the upload's progress
// reported to a progress delegate at each quarter and to a bytes-sent block, and then a look at
// what the server received.
//
// Runs offline against Courier's test server on 127.0.0.1, whose /echo route answers with the
// body it received. For your own server: put its upload URL in `uploadURL`, your file's path in
// `filePath`, and read your server's own answer instead of the echo check at the end.
import Courier
import CourierTestServer
import Foundation
import Synchronization

/// Prints each quarter of the upload once, however the progress calls are coalesced.
final class QuarterPrinter: ProgressDelegate {
    private(set) var printed = 0

    func setProgress(_ progress: Double) {
        while printed < 4, progress >= Double(printed + 1) / 4 {
            printed += 1
            print("sent \(printed * 25)%")
        }
    }
}

// A 2 MiB file to upload, written for the run and removed at the end.
let filePath = FileManager.default.temporaryDirectory.appendingPathComponent("courier-form-\(getpid()).bin").path
let fileBytes = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
try fileBytes.write(to: URL(fileURLWithPath: filePath))
defer { try? FileManager.default.removeItem(atPath: filePath) }

let server = try TestServer()
defer { server.stop() }
let uploadURL = server.url(.echo)

let form = FormDataRequest(url: uploadURL)
form.setPostValue("holiday photos", forKey: "album")
form.setFile(filePath, withFileName: "beach.bin", andContentType: "application/octet-stream", forKey: "photo")

let quarters = QuarterPrinter()
form.uploadProgressDelegate = quarters  // held weakly: `quarters` lives until the end
let lastSent = Mutex<(sent: Int64, total: Int64)>((0, 0))
form.setBytesSentBlock { _, sent, total in lastSent.withLock { $0 = ($0.sent + sent, total) } }
form.startSynchronous()  // the callbacks run on this thread before it returns

if let error = form.error {
    print("upload failed: \(error)")
    exit(1)
}
let counted = lastSent.withLock { $0 }
print("status \(form.responseStatusCode), the bytes-sent block counted \(counted.sent) of \(counted.total)")

// The echo route's JSON: the request's headers and its body in base64.
struct Echo: Decodable {
    let headers: [[String]]
    let body: String
}
let echo = try JSONDecoder().decode(Echo.self, from: form.responseData() ?? Data())
let body = Data(base64Encoded: echo.body) ?? Data()
let contentType = echo.headers.first { $0.first?.lowercased() == "content-type" }?.last ?? ""
let boundary = contentType.components(separatedBy: "boundary=").last ?? ""

/// The parts of a multipart body, by field name: a sketch of what the server does with it.
func parts(of body: Data, boundary: String) -> [String: Data] {
    let delimiter = Data("\r\n--\(boundary)".utf8)
    var found: [String: Data] = [:]
    var rest = Data("\r\n".utf8) + body  // so the first delimiter looks like the others
    while let start = rest.range(of: delimiter) {
        rest = rest[start.upperBound...]
        guard let headerEnd = rest.range(of: Data("\r\n\r\n".utf8)), let end = rest.range(of: delimiter) else { break }
        let head = String(decoding: rest[rest.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        if let name = head.components(separatedBy: "name=\"").dropFirst().first?.components(separatedBy: "\"").first {
            found[name] = Data(rest[headerEnd.upperBound..<end.lowerBound])
        }
        rest = rest[end.lowerBound...]
    }
    return found
}

let received = parts(of: body, boundary: boundary)
let album = received["album"].map { String(decoding: $0, as: UTF8.self) }
let allCounted = counted.sent == Int64(body.count) && counted.total == Int64(body.count)
print("the server got \(body.count) bytes of \(contentType.components(separatedBy: ";").first ?? "?")")
print("the bytes-sent block counted \(allCounted ? "every one of them" : "\(counted.sent) of them")")
print("field album: \(album ?? "missing")")
print(
    "file photo: \(received["photo"]?.count ?? 0) bytes, \(received["photo"] == fileBytes ? "identical" : "DIFFERENT")")
exit(album == "holiday photos" && received["photo"] == fileBytes && quarters.printed == 4 && allCounted ? 0 : 1)
