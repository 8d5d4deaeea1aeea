import CourierTestServer
import Foundation
import XCTest

/// A test case with a fixture server of its own: a new `TestServer` for each test, started before
/// it and stopped after it, so that what the server counts and records is about that test alone.
///
/// A subclass that needs more setup overrides `setUpWithError()` or `tearDown()` and calls super
/// (the server is there once `super.setUpWithError()` has returned).
open class ServerTestCase: XCTestCase {
    /// This test's server; nil outside `setUp`…`tearDown`.
    public var server: TestServer!

    open override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer()
    }

    open override func tearDown() {
        server?.stop()
        // XCTest keeps every test case object until the run ends: let the server's threads go now.
        server = nil
        super.tearDown()
    }
}
