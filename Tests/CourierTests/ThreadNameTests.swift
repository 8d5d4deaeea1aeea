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

    /// Corelibs Foundation's `Thread.name` setter names the kernel's thread only once `start()`
    /// has stored the thread's handle; a thread that ran before its starter got there lost its
    /// name. Before the fix a few in every 200 did on two cores, and more under ThreadSanitizer,
    /// whose `pthread_create` returns only after the new thread has begun. A thousand threads
    /// make that loss all but certain to show.
    func testThatEveryThreadStartedNamedShowsItsNameFromItsFirstLine() {
        let count = 1000
        let unnamed = Locked<[String]>([])
        let finished = DispatchGroup()
        for index in 0..<count {
            let name = "courier-t\(index)"
            finished.enter()
            Thread.startNamed(name) {
                let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                let shown = comm?.trimmingCharacters(in: .newlines) ?? "unreadable"
                if shown != name { unnamed.withLock { $0.append("\(name) showed as \(shown)") } }
                finished.leave()
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "every thread ran")
        XCTAssertEqual(unnamed.withLock { $0 }, [], "of \(count) threads")
    }

    /// Linux keeps 15 bytes of a thread's name (`TASK_COMM_LEN`); a longer one is cut there
    /// rather than refused, and never inside a character.
    func testThatALongNameIsCutToFifteenBytes() {
        let shown = Locked<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.startNamed("courier-\u{e9}\u{e9}\u{e9}\u{e9}-long-name") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            shown.withLock { $0 = comm?.trimmingCharacters(in: .newlines) }
            finished.signal()
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        // "courier-" is 8 bytes and each "é" 2: a 16th byte would split the fourth.
        XCTAssertEqual(shown.withLock { $0 }, "courier-\u{e9}\u{e9}\u{e9}")
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
