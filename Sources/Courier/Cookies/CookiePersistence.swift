import Foundation
import Synchronization

/// `HTTPRequest.cookieFilePath` and the work behind it: the file is loaded into the jar when the
/// path is set (before any request started afterwards: the load is an engine command, and the
/// engine runs commands in order), and saved, whole and atomically, half a second after the jar
/// changed (a response that set cookies, `setSessionCookies`, `addSessionCookie`,
/// `clearSession`), so a burst of responses makes one write, and once more at exit. Without a
/// path nothing is written anywhere.
enum CookiePersistence {
    private struct State {
        var path: String?
        /// The jar changed since the file was last written.
        var isDirty = false
        var saveIsScheduled = false
        var exitHookIsInstalled = false
    }

    private static let state = Locked(State())
    /// Whether a path is set: the engine asks this after every transfer, so it is one atomic load.
    private static let savesToFile = Atomic<Bool>(false)
    /// Saves run here, one at a time, in order.
    private static let saveQueue = DispatchQueue(label: "courier.cookie-file")
    /// How long after a change the file is written.
    static let saveDelay: TimeInterval = 0.5
    /// How long the exit hook waits for the engine thread to read the jar.
    static let exitTimeout: TimeInterval = 2

    static var path: String? {
        get { state.withLock { $0.path } }
        set {
            let installsHook = state.withLock { state -> Bool in
                state.path = newValue
                defer { state.exitHookIsInstalled = state.exitHookIsInstalled || newValue != nil }
                return newValue != nil && !state.exitHookIsInstalled
            }
            savesToFile.store(newValue != nil, ordering: .relaxed)
            if installsHook { atexit { CookiePersistence.saveAtExit() } }
            if let newValue { load(from: newValue) }
        }
    }

    /// Adds the file's cookies to the jar (a cookie of the same name, domain and path is replaced).
    private static func load(from path: String) {
        let lines: [String]
        do {
            lines = try CookieFile.lines(at: path)
        } catch {
            Log.message("the cookie file \(path) could not be read: \(error)")
            return
        }
        guard !lines.isEmpty else { return }
        Engine.shared.onCookieJar { jar in
            for line in lines { try jar.add(line: line) }
        }
    }

    /// After a transfer on the shared jar (engine thread): a response that set cookies changed it.
    static func noteTransfer(_ head: ResponseHead?) {
        guard savesToFile.load(ordering: .relaxed), let head, head.headerBlock.value(of: "Set-Cookie") != nil else {
            return
        }
        jarDidChange()
    }

    /// The jar changed: save it soon, if there is a file. Any thread.
    static func jarDidChange() {
        let schedules = state.withLock { state -> Bool in
            guard state.path != nil else { return false }
            state.isDirty = true
            guard !state.saveIsScheduled else { return false }
            state.saveIsScheduled = true
            return true
        }
        if schedules { saveQueue.asyncAfter(deadline: .now() + saveDelay) { save(timeout: nil) } }
    }

    /// Writes the jar to the file if it changed since the last write. On `saveQueue`.
    private static func save(timeout: TimeInterval?) {
        let path = state.withLock { state -> String? in
            state.saveIsScheduled = false
            guard state.isDirty, let path = state.path else { return nil }
            state.isDirty = false
            return path
        }
        guard let path else { return }
        do {
            let lines = try Engine.shared.withCookieJar(timeout: timeout) { try $0.lines() }
            try CookieFile.save(lines, to: path)
        } catch {
            state.withLock { $0.isDirty = true }
            Log.message("the cookie file \(path) could not be saved: \(error)")
        }
    }

    /// The exit hook: the last changes, written before the process ends.
    private static func saveAtExit() {
        saveQueue.sync { save(timeout: exitTimeout) }
    }
}
