import Courier
import XCTest

/// A test case that starts and ends with `HTTPRequest.clearSession()`, so credentials (and
/// session cookies) another test left in the process-wide stores play no part.
class FreshSessionTestCase: XCTestCase {
    override func setUp() {
        super.setUp()
        HTTPRequest.clearSession()
    }

    override func tearDown() {
        HTTPRequest.clearSession()
        super.tearDown()
    }
}
