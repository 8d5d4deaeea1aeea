import CourierTestSupport
import XCTest

/// A test against the fixture server with a fresh `FolderCache` of its own, in a temporary
/// folder removed after the test.
class CacheTestCase: ServerTestCase {
    var cache: FolderCache!

    override func setUpWithError() throws {
        try super.setUpWithError()
        cache = FolderCache(folder: try makeTemporaryDirectory())
    }
}
