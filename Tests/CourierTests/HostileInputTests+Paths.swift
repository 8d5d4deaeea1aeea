import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Names that come from a URL (which a hostile server chooses, through a redirect or a link)
/// never leave their folder. The library writes files under names of its own only in the
/// download cache (`downloadDestinationPath`, `cookieFilePath` and the credential file's path
/// are the caller's, never a server's; the CLI's naming is covered by CourierCLITests'
/// GetSafetyTests and NamingSafetyTests). CWE-22 (path traversal).
extension HostileInputTests {
    func testThatCachedFilesStayInTheCacheFolderWhateverTheURL() throws {
        let folder = try makeTemporaryDirectory("hostile-cache")
        let cache = DownloadCache(storagePath: folder.path)
        let base = "http://127.0.0.1:\(server.port)/echo"
        let hostile = [
            "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/tmp/escaped.txt", "/..%2f..%2f..%2fescaped.sh", "/a%00b.txt",
            "/%2f%2fescaped", "/" + String(repeating: "n", count: 3000) + ".html",
            "/x.%2e%2e%2f%2e%2e%2fescaped", "/..\\..\\escaped.bat", "/?name=../../escaped",
        ]
        for suffix in hostile {
            let url = try XCTUnwrap(URL(string: base + suffix), suffix)
            let request = HTTPRequest(url: url)
            request.downloadCache = cache
            request.cacheStoragePolicy = .permanently
            request.startSynchronous()
            XCTAssertNil(request.error, suffix)
            let path = try XCTUnwrap(cache.pathToCachedResponseData(for: url), "\(suffix) was cached")
            let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
            XCTAssertTrue(standardized.hasPrefix(folder.standardizedFileURL.path + "/"), "\(suffix): \(path)")
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(name.prefix(while: \.isHexDigit).count, 64, "a SHA-256 name: \(name)")
            XCTAssertLessThanOrEqual(name.utf8.count, 64 + 1 + 13)
        }
        // Every file the cache made is a hashed name directly in one of its two stores.
        let made = try XCTUnwrap(FileManager.default.subpaths(atPath: folder.path))
        for relative in made {
            let parts = relative.split(separator: "/")
            XCTAssertTrue(["PermanentStore", "SessionStore"].contains(String(parts[0])), relative)
            XCTAssertLessThanOrEqual(parts.count, 2, relative)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/escaped.txt"))
    }
}
