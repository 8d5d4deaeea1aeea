import Foundation

/// A small shell process that stops the interop servers if the test process dies without
/// stopping them itself (a crash, SIGKILL, a timeout in CI), so no server outlives its run.
///
/// The servers are the test process's children; so is the watchdog. When the test process ends,
/// the kernel gives its children a new parent: the watchdog sees its own parent pid change
/// (polled every 0.5 s in its /proc/PID/stat, which a zombie parent cannot fool), sends the servers
/// SIGTERM, then SIGKILL to any still running (not a zombie) two seconds later, and removes the
/// temporary directory. In a normal run ``InteropServers/stop()`` ends the watchdog first.
///
/// `@unchecked Sendable`: `process` is only started in `init`; afterwards it is only signalled
/// and polled, which Foundation's `Process` allows from any thread.
final class ServerWatchdog: @unchecked Sendable {
    private static let script = """
        trap 'exit 0' TERM
        parent=$1; directory=$2; shift 2
        while read -r _ _ _ ppid _ < /proc/$$/stat && [ "$ppid" = "$parent" ]; do sleep 0.5; done
        kill -TERM "$@" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            alive=""
            for pid in "$@"; do
                line=""; read -r line < /proc/$pid/stat 2>/dev/null
                case "$line" in "" | *") Z "*) ;; *) alive=1 ;; esac
            done
            [ -n "$alive" ] || break
            sleep 0.2
        done
        [ -z "$alive" ] || kill -KILL "$@" 2>/dev/null
        rm -rf "$directory"
        """

    private let process = Process()

    /// Starts watching the servers with process ids `pids`, which own `directory`.
    init(pids: [Int32], directory: URL) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", Self.script, "interop-watchdog", String(getpid()), directory.path] + pids.map(String.init)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Ends the watchdog, leaving the servers alone. Its `TERM` trap runs once its current
    /// `sleep` ends, so it leaves no `sleep` behind; this takes up to half a second.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
