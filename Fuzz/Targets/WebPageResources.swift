@testable import Courier
import Foundation

/// A page and a stylesheet as WebPageRequest reads them: libxml2's HTML parser over tag soup, and
/// the CSS scanner. Every URL found is non-empty and no `data:` URI; each CSS range lies inside
/// the sheet and its text, unescaped, is the URL reported.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPageResources(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let page = HTMLResourceScanner.scan(Data(input.bytes))
    for reference in page.references {
        fuzzCheck(!reference.url.isEmpty, "an empty URL from the page")
        fuzzCheck(!reference.url.lowercased().hasPrefix("data:"), "a data: URI from the page")
    }
    for found in CSSResourceScanner.scan(input.bytes) {
        fuzzCheck(found.range.lowerBound >= 0 && found.range.upperBound <= input.bytes.count, "a range outside the sheet")
        let text = String(decoding: input.bytes[found.range], as: UTF8.self)
        fuzzCheck(
            CSSResourceScanner.unescape(text) == found.reference.url, "a range whose text is not the URL: \(text)")
        fuzzCheck(!found.reference.url.isEmpty, "an empty URL from the sheet")
    }
    _ = HTMLResourceScanner.srcsetURLs(input.text)
    return 0
}
