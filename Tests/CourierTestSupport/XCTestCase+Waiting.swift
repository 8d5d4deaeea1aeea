import Foundation
import XCTest

extension XCTestCase {
    /// Waits, while the main queue keeps running, until `condition` holds or `timeout` passes;
    /// then the test fails, with `message` saying what it waited for.
    public func waitUntil(
        timeout: TimeInterval = 10, message: @autoclosure () -> String = "", file: StaticString = #filePath,
        line: UInt = #line, _ condition: () -> Bool
    ) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline {
                let what = message()
                let detail = what.isEmpty ? "" : ": " + what
                XCTFail("condition not met within \(timeout) s\(detail)", file: file, line: line)
                return
            }
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
        }
    }
}

extension XCTestCase {
    /// Lets `seconds` pass while the main queue keeps running (a bare `RunLoop.run(before:)`
    /// returns as soon as one main-queue block has run).
    public func spinMainQueue(for seconds: TimeInterval) {
        let until = Date(timeIntervalSinceNow: seconds)
        while Date() < until {
            _ = RunLoop.current.run(mode: .default, before: min(until, Date(timeIntervalSinceNow: 0.01)))
        }
    }
}
