import Dispatch
import Foundation

/// Ctrl-C (SIGINT) while a command runs: instead of dying mid-line, the command clears its bar,
/// prints its summary and exits 130, as shells expect of a process ended by SIGINT.
@MainActor
enum InterruptHandler {
    /// The exit status of a program interrupted by SIGINT: 128 + 2.
    static let exitStatus: Int32 = 130

    /// Kept for the life of the process: a released source stops delivering.
    private static var source: DispatchSourceSignal?

    /// Runs `handler` on the main queue at the first SIGINT; a second one ends the process at
    /// once, in case the first got stuck.
    static func install(_ handler: @escaping @MainActor () -> Never) {
        installFinishing { handler() }
    }

    /// As `install(_:)`, for a command that has something to finish before it exits (`s3 cp`
    /// aborts its multipart upload, so no parts are left behind): `handler` returns to the main
    /// queue, and the command exits 130 itself once that is done.
    static func installFinishing(_ handler: @escaping @MainActor () -> Void) {
        // The default action would kill the process before the source sees the signal.
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        var seen = false
        source.setEventHandler {
            MainActor.assumeIsolated {
                if seen { exit(exitStatus) }
                seen = true
                handler()
            }
        }
        source.resume()
        self.source = source
    }
}
