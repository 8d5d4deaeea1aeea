@testable import Courier
import Foundation

/// A page and a stylesheet as WebPageRequest reads and rewrites them: libxml2's HTML parser over
/// tag soup, and the CSS scanner. Every URL found is non-empty and no `data:` URI; each CSS range
/// lies inside the sheet and its text, unescaped, is the URL reported; a sheet with every URL
/// replaced names the same number of URLs, each the replacement; a page rewritten is written.
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
    let found = CSSResourceScanner.scan(input.bytes)
    let again = CSSResourceScanner.scan(CSSResourceScanner.rewrite(input.bytes, found) { _ in "r(e) 'p'" })
    fuzzCheck(
        again.count == found.count && again.allSatisfy { $0.reference.url == "r%28e%29%20%27p%27" },
        "a rewritten sheet names other URLs: \(again.map(\.reference.url))")
    let rewrite = HTMLResourceScanner.Rewrite(resource: { _ in "r\"<>&" }, link: { _ in "l" }, removesBase: true)
    fuzzCheck(
        page.references.isEmpty
            || HTMLResourceScanner.rewrite(Data(input.bytes), encoding: nil, outputEncoding: "utf-8", rewrite) != nil,
        "a page with resources was not written back")
    _ = HTMLResourceScanner.srcsetURLs(input.text)
    return 0
}
