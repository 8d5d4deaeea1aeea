import Foundation
import XCTest

extension XCTestCase {
    /// The names in `directory`, sorted. (`makeTemporaryDirectory` is CourierTestSupport's.)
    public func fileNames(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}
