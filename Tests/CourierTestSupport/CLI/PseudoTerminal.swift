import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal, so that a child process writes to what it takes for a terminal window:
/// the child gets the slave side as its standard error (or output), and the test reads
/// everything it drew from the master side.
///
/// The slave is in raw mode, so the bytes read are exactly the bytes written: a terminal's usual
/// output processing would turn every "\n" into "\r\n" and blur the redraws under test.
///
/// `@unchecked Sendable`: the captured bytes are guarded by `lock`; `master` is set once, and
/// `slave` only the test's thread touches.
public final class PseudoTerminal: @unchecked Sendable {
    /// Why the pseudo-terminal could not be set up.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let master: Int32
    private var slave: Int32
    private let lock = NSLock()
    private var captured = Data()
    private let readerDone = DispatchSemaphore(value: 0)

    /// A pseudo-terminal `columns` wide and `rows` high, as `TIOCGWINSZ` reports it.
    public init(columns: UInt16, rows: UInt16 = 24) throws {
        // openpty(3) is posix_openpt, grantpt, unlockpt, ptsname and open in one call: Swift's
        // Glibc module does not declare those four (they need _XOPEN_SOURCE), but it does this.
        // Both sides stay open here, so the master never reads end-of-terminal (EIO) before the
        // child has started.
        var master: Int32 = -1
        var slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else {
            throw Failure(description: "openpty: \(Self.lastError())")
        }
        self.master = master
        self.slave = slave
        var attributes = termios()
        guard tcgetattr(slave, &attributes) == 0 else { throw failure("tcgetattr") }
        cfmakeraw(&attributes)
        guard tcsetattr(slave, TCSANOW, &attributes) == 0 else { throw failure("tcsetattr") }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else { throw failure("ioctl(TIOCSWINSZ)") }
    }

    deinit {
        closeSlave()
        // The reader holds this object until it has stopped reading, so no read(2) can be using
        // the number now.
        close(master)
    }

    /// The slave side, for `Process.standardError` or `standardOutput`; this object closes it.
    public var slaveHandle: FileHandle {
        FileHandle(fileDescriptor: slave, closeOnDealloc: false)
    }

    /// Types `text` on the terminal, as a user at its keyboard would.
    public func type(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Closes this process's copy of the slave side: call it once the child has started (and on
    /// every way out), so the master reads end-of-terminal when the child exits and the reader
    /// stops.
    public func closeSlave() {
        guard slave >= 0 else { return }
        close(slave)
        slave = -1
    }

    /// Starts reading the master side on a thread of its own, until every slave is closed. The
    /// child can then never block on a full terminal buffer.
    public func startReading() {
        let master = master
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count > 0 {
                    lock.withLock { captured.append(contentsOf: buffer[..<count]) }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    // 0, or EIO: Linux's "no slave is open any more".
                    break
                }
            }
            readerDone.signal()
        }
    }

    /// Everything read, once the reader has seen the last slave close or `timeout` has passed;
    /// nil on a timeout.
    public func output(waitingUpTo timeout: TimeInterval) -> Data? {
        guard readerDone.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { captured }
    }

    /// What was read so far, for a failure message.
    public var partialOutput: Data {
        lock.withLock { captured }
    }

    private func failure(_ call: String) -> Failure {
        Failure(description: "\(call): \(Self.lastError())")
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
