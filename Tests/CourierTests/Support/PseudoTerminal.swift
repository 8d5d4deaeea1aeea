import Foundation
import XCTest
@testable import Courier
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal in its default (cooked, echoing) mode, as a user's terminal is: the dialog
/// gets the slave side; the test types on the master side and reads what was drawn there.
final class Terminal: @unchecked Sendable {
    // @unchecked Sendable: `drawn` is guarded by `condition`; the descriptors are set once.
    let master: Int32
    let slave: Int32
    private let condition = NSCondition()
    private var drawn = Data()
    private var readerFinished = false

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw Failure(description: "openpty: \(String(cString: strerror(errno)))")
        }
        self.master = master
        self.slave = slave
        Thread.detachNewThread { [self] in readMaster() }
    }

    deinit {
        close(slave)
        // The reader has seen EIO once the slave closed; wait for it before giving up the master.
        condition.lock()
        let deadline = Date().addingTimeInterval(5)
        while !readerFinished, condition.wait(until: deadline) {}
        condition.unlock()
        close(master)
    }

    var screen: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: drawn, as: UTF8.self)
    }

    var echoIsOn: Bool {
        var attributes = termios()
        guard tcgetattr(slave, &attributes) == 0 else { return false }
        return attributes.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Runs the dialog on the slave side on this thread, while another thread types `answers`:
    /// each once its prompt has appeared, as a user would.
    func run(
        _ prompt: AuthenticationPrompt, typing answers: [(prompt: String, text: String)]
    ) throws
        -> StoredCredential?
    {
        let typist = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            do { try type(answers) } catch { typist.withLock { $0 = error } }
            done.signal()
        }
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<StoredCredential?>(nil)
        let slave = slave
        Thread.detachNewThread {
            let result = TerminalAuthenticationDialog(input: slave, output: slave).ask(prompt)
            answer.withLock { $0 = result }
            answered.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        if answered.wait(timeout: .now() + 10) == .timedOut {
            // Never leave the dialog reading: end of input (Ctrl-D) ends its read.
            XCTFail("the dialog did not answer within 10 s; the screen:\n\(screen)")
            _ = Glibc.write(master, [4, 4], 2)
            _ = answered.wait(timeout: .now() + 5)
        }
        if let error = typist.current { throw error }
        try settle()
        return answer.current
    }

    /// Waits until everything drawn so far (echoes included) has been read from the master: the
    /// reader runs on its own thread, so `screen` could otherwise lag behind the terminal.
    func settle() throws {
        let marker = "[settled \(UUID().uuidString)]"
        let bytes = Array(marker.utf8)
        guard Glibc.write(slave, bytes, bytes.count) == bytes.count else {
            throw Failure(description: "write to the slave failed")
        }
        var seen = 0
        try waitFor(marker, after: &seen)
    }

    /// Types each answer once its prompt has been drawn, counting prompts from the start.
    func type(_ answers: [(prompt: String, text: String)]) throws {
        var seen = 0
        for answer in answers {
            try waitFor(answer.prompt, after: &seen)
            let bytes = Array(answer.text.utf8)
            guard Glibc.write(master, bytes, bytes.count) == bytes.count else {
                throw Failure(description: "write to the master failed")
            }
        }
    }

    private func waitFor(_ text: String, after seen: inout Int) throws {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let screen = String(decoding: drawn.dropFirst(seen), as: UTF8.self)
            if let range = screen.range(of: text) {
                seen += screen[..<range.upperBound].utf8.count
                return
            }
            guard condition.wait(until: deadline) else {
                throw Failure(description: "no \(text.debugDescription) within 10 s; the screen:\n\(self.screenLocked)")
            }
        }
    }

    private var screenLocked: String { String(decoding: drawn, as: UTF8.self) }

    private func readMaster() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            condition.lock()
            if count > 0 { drawn.append(contentsOf: buffer[..<count]) } else { readerFinished = true }
            condition.broadcast()
            condition.unlock()
            if count <= 0 { return }
        }
    }
}
