import Foundation
import XCTest

extension XCTestCase {
    /// A new empty directory for this test, removed when the test ends.
    public func makeTemporaryDirectory(_ prefix: String = "courier") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }
}

extension URL {
    /// Writes `data` to the file `name` in this directory and returns the file's path.
    public func writeFile(_ name: String, _ data: Data) throws -> String {
        let file = appendingPathComponent(name)
        try data.write(to: file)
        return file.path
    }
}
