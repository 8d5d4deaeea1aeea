@testable import Courier
import Foundation

/// Charset detection as `responseEncoding` works it out: the first line is a Content-Type
/// field's value, read from a header block; the rest is a body decoded as `responseString()`
/// decodes it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCharset(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let newline = input.bytes.firstIndex(of: 0x0A) ?? input.bytes.endIndex
    var line = Array("Content-Type: ".utf8) + input.bytes[..<newline]
    let body = Data(input.bytes[min(newline + 1, input.bytes.endIndex)...])
    var block = RawHeaderBlock()
    line.withUnsafeMutableBytes { block.append(UnsafeRawBufferPointer($0)) }
    guard let contentType = block.value(of: "content-type") else {
        fuzzCheck(false, "the Content-Type field was not found")
        return 0
    }
    _ = ContentType.mimeType(in: contentType)
    guard let charset = ContentType.charset(in: contentType) else { return 0 }
    guard let encoding = String.Encoding(ianaCharsetName: charset) else { return 0 }
    // The name Courier writes for an encoding names that encoding again (form bodies).
    let written = encoding.ianaCharsetName
    fuzzCheck(String.Encoding(ianaCharsetName: written) == encoding, "\(written) does not name \(encoding)")
    if let text = String(data: body, encoding: encoding) {
        _ = text.data(using: encoding, allowLossyConversion: true)
    }
    return 0
}
