import Courier
import CourierTestSupport
import Foundation
import XCTest

extension XCTestCase {
    /// A `DownloadCache` in a new temporary folder, removed when the test ends.
    func makeCache() throws -> DownloadCache {
        DownloadCache(storagePath: try makeTemporaryDirectory("download-cache").path)
    }
}

extension CacheableResponse {
    /// A response with `body` in memory.
    static func text(_ body: String, status: Int = 200, headers: HTTPHeaders = [:]) -> CacheableResponse {
        CacheableResponse(statusCode: status, headers: headers, body: Data(body.utf8), bodyPath: nil)
    }
}

extension DownloadCache {
    /// The stored body for `url` as text, or nil.
    func cachedText(for url: URL) -> String? {
        cachedResponseData(for: url).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The metadata file beside the stored body for `url`.
    func metadataPath(for url: URL) -> String? {
        pathToCachedResponseData(for: url).map { ($0 as NSString).deletingPathExtension + ".cachedheaders" }
    }
}
