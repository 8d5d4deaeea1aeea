import CourierTestSupport
import Foundation

/// Finds and runs the programs the interop servers are made of (nginx, openssl, gunicorn, curl,
/// md5sum), which `scripts/setup.sh` installs.
enum ExternalTool {
    /// Directories searched after `PATH`: Debian puts nginx in /usr/sbin, which a non-root `PATH`
    /// often lacks.
    private static let extraDirectories = ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"]

    /// The virtual environment `scripts/setup.sh` installs httpbin and gunicorn into:
    /// `$COURIER_INTEROP_VENV`, else `${XDG_CACHE_HOME:-$HOME/.cache}/courier/interop-venv`.
    static var pythonEnvironment: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["COURIER_INTEROP_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return URL(fileURLWithPath: cache, isDirectory: true).appendingPathComponent("courier/interop-venv")
    }

    /// The executable `name` from `PATH` or the usual system directories.
    /// - Throws: ``InteropServersError/missingTool(_:lookedIn:)`` when there is none.
    static func locate(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw InteropServersError.missingTool(name, lookedIn: "PATH and \(extraDirectories.joined(separator: ", "))")
    }

    /// gunicorn from ``pythonEnvironment``.
    /// - Throws: ``InteropServersError/missingTool(_:lookedIn:)`` when it is not installed there.
    static func locateGunicorn() throws -> URL {
        let candidate = pythonEnvironment.appendingPathComponent("bin/gunicorn")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw InteropServersError.missingTool("gunicorn", lookedIn: candidate.path)
        }
        return candidate
    }

    /// Runs `executable` to completion in `directory` and returns what it printed (standard output
    /// and error together).
    /// - Throws: ``InteropServersError/toolFailed(_:status:output:)`` when it exits non-zero.
    @discardableResult
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) throws -> String {
        // A tool that hangs (openssl waiting on something, say) throws Tool.TimedOut.
        let run = try Tool.run(executable, arguments, in: directory, errorsToOutput: true, timeout: 120)
        guard run.exited, run.status == 0 else {
            let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
            throw InteropServersError.toolFailed(command, status: run.status, output: run.text)
        }
        return run.text
    }

    /// The lowercase hex MD5 digest of `file`, by `md5sum`.
    static func md5(of file: URL) throws -> String {
        let output = try run(try locate("md5sum"), [file.path], in: file.deletingLastPathComponent())
        return String(output.prefix { !$0.isWhitespace })
    }
}
