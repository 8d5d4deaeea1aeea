import Foundation

#if canImport(Glibc)
import Glibc

// glibc declares `pthread_setname_np` only under `_GNU_SOURCE`, which Swift's Glibc module does
// not define; CourierThreadSanitizer reaches the TSan runtime's functions the same way.
@_silgen_name("pthread_setname_np")
private func setKernelThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
#endif

extension Thread {
    /// Starts a thread that runs `body` under `name`, a name `top -H`, gdb and
    /// `/proc/<pid>/task/*/comm` show. Linux keeps 15 bytes of it.
    ///
    /// The thread names itself with `pthread_setname_np` before `body`. Corelibs Foundation
    /// (Swift 6.3.1) cannot do it: a name set before `start()` stays in `Thread.name` only, and
    /// `Thread.current.name = …` inside the thread names the kernel's thread only if `start()`
    /// has already stored the thread's handle, so a thread that ran before its starter got there
    /// silently kept the process's name: a few threads in 200 on two cores, more under
    /// ThreadSanitizer, whose `pthread_create` returns only after the new thread has begun.
    static func startNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.start()
    }

    /// Names the calling thread in the kernel, cut to Linux's 15 bytes at a character boundary
    /// (`pthread_setname_np` refuses a longer name outright).
    private static func nameCurrentThread(_ name: String) {
        #if canImport(Glibc)
        var kept = Substring(name)
        while kept.utf8.count > 15 { kept = kept.dropLast() }
        // A refusal leaves the process's name, which only a person reading `top -H` would notice.
        _ = setKernelThreadName(pthread_self(), String(kept))
        #else
        Thread.current.name = name
        #endif
    }
}
