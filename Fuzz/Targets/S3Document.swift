@testable import Courier
import Foundation

/// An S3 answer's body, as `S3Request`'s review reads it: the XML reader, the error document
/// (`S3Error.from`), a listing's objects and S3's dates. A document that reads is written back out
/// and must read back the same; nesting stays within the reader's bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzS3Document(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let body = Data(input.bytes)
    let error = S3Error.from(statusCode: 404, reason: "Not Found", headers: [:], body: body)
    fuzzCheck(!error.code.isEmpty, "an error without a code")
    _ = S3Date.parse(input.text)
    guard let document = try? S3XMLElement.parse(input.bytes) else { return 0 }
    fuzzCheck(depth(of: document) <= S3XMLElement.maximumDepth, "nesting past the bound")
    let written = Array(xml(document).utf8)
    guard let again = try? S3XMLElement.parse(written) else {
        fuzzCheck(false, "a document written back does not read: \(String(decoding: written, as: UTF8.self))")
        return 0
    }
    fuzzCheck(again == document, "a document written back reads differently")
    for element in document.children("Contents") {
        let object = S3BucketObject(listed: element, bucket: "b")
        fuzzCheck(object.size >= 0 || element.text("Size")?.hasPrefix("-") == true, "a size from nowhere")
    }
    return 0
}

private func depth(of element: S3XMLElement) -> Int {
    1 + (element.children.map(depth).max() ?? 0)
}

/// The element as XML: its text first (the reader keeps an element's text runs as one), escaped,
/// then its children.
private func xml(_ element: S3XMLElement) -> String {
    let text = element.text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;")
    return "<\(element.name)>" + text + element.children.map(xml).joined() + "</\(element.name)>"
}
