import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Courier's threads carry their names to the kernel, where `top -H`, gdb and a crash report
/// read them. Before the fix the names were set before `start()`, which corelibs Foundation
/// keeps in `Thread.name` only: every thread showed as the process's name.
final class ThreadNameTests: ServerTestCase {
    /// The kernel's names of this process's threads.
    private func kernelThreadNames() throws -> [String] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        return tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                .trimmingCharacters(in: .newlines)
        }
    }

    func testThatTheEngineThreadShowsItsName() throws {
        let request = HTTPRequest(url: server.url(.bytes(10)))
        request.startSynchronous()
        XCTAssertNil(request.error)
        let names = try kernelThreadNames()
        XCTAssertTrue(names.contains("courier-engine"), "\(names)")
    }

    func testThatABodyStreamsReaderThreadShowsItsName() throws {
        // A stream that never ends keeps the reader thread alive while the names are read.
        let pipe = Pipe()
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        let path = "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        request.setPostBodyStream(length: nil) { InputStream(fileAtPath: path)! }
        request.startAsynchronous()
        defer {
            request.cancel()
            try? pipe.fileHandleForWriting.close()
        }
        waitUntil(timeout: 10, message: "the reader thread") {
            (try? self.kernelThreadNames().contains("courier-body")) == true
        }
        XCTAssertTrue(try kernelThreadNames().contains("courier-body"))
    }
}
