import Foundation

extension Thread {
    /// Starts a thread that runs `body` under `name`, a name `top -H`, gdb and
    /// `/proc/<pid>/task/*/comm` show. Corelibs Foundation applies a name set before `start()`
    /// only to `Thread.name`, never to the kernel's thread (seen with Swift 6.3.1), so the thread
    /// names itself first. Linux keeps 15 bytes of it.
    static func startNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
