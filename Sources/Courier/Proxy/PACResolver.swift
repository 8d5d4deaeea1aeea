import Foundation

/// What a PAC file decided for one URL: the choices to try in order, or why the request fails.
enum PACDecision: Sendable {
    case choices([PACChoice])
    /// The file was read but cannot be used (`PACScriptError`), as an `HTTPRequestError`.
    case failure(HTTPRequestError)
}

/// Turns a PAC URL and a request URL into a `PACDecision`, fetching and compiling each PAC file
/// once and remembering each answer.
///
/// Everything here runs on its own concurrent queue, never on the engine thread: fetching an
/// http PAC file is a synchronous `HTTPRequest`, which needs the engine thread free, and a PAC
/// file's `dnsResolve` blocks. ASI's rules (asi-api.md A.6): a PAC file that cannot be fetched in
/// `timeOutSeconds` (or is not a file, http or https URL) means no proxy, which is logged. A
/// file that was fetched but is broken fails the request instead (issue 17): guessing a route
/// for a file that says something we cannot read could send traffic where its author never
/// meant it to go.
final class PACResolver: Sendable {
    static let shared = PACResolver()

    private let queue = DispatchQueue(label: "Courier.PAC", qos: .utility, attributes: .concurrent)
    private let sources = Locked<[URL: SourceState]>([:])

    /// The most answers kept per PAC file; beyond it they are forgotten and worked out again.
    static let answerLimit = 1024

    private enum SourceState {
        case loading(PACLoad)
        case loaded(PACSource, stamp: FileStamp?)
    }

    /// Works out the decision on the PAC queue and hands it to `completion` there.
    func decide(
        pacURL: URL, for url: URL, timeout: TimeInterval, completion: @escaping @Sendable (PACDecision) -> Void
    ) {
        queue.async { completion(self.decision(pacURL: pacURL, for: url, timeout: timeout)) }
    }

    /// The decision for `url`; blocks while the PAC file is fetched. Not on the engine thread.
    func decision(pacURL: URL, for url: URL, timeout: TimeInterval) -> PACDecision {
        guard let key = Self.key(for: url), let host = url.host else { return .choices([.direct]) }
        let source: PACSource
        switch load(pacURL, timeout: timeout) {
        case .unavailable(let reason):
            Log.message("the PAC file \(Log.masked(pacURL)) could not be read (\(reason)): going without a proxy")
            return .choices([.direct])
        case .available(let loaded):
            source = loaded
        }
        let answer = source.answer(for: key, host: host)
        switch answer {
        case .success(let choices):
            if Log.isEnabled {
                Log.message("the PAC file chose \(choices.map(\.description).joined(separator: "; ")) for \(key)")
            }
            return .choices(choices)
        case .failure(let error):
            return .failure(
                HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest,
                    message: "The PAC file \(Log.masked(pacURL)) is broken: \(error.message)", url: url))
        }
    }

    /// Forgets every PAC file and answer (tests; a PAC file that changed on a server).
    func removeAll() {
        sources.withLock { $0.removeAll() }
    }

    /// What `FindProxyForURL` is given as its `url`, which answers are remembered by: the URL
    /// without credentials or fragment; for https only scheme, host and port, as Chromium does,
    /// since the path and query of an https URL are the user's secret. Nil for a URL the request
    /// will refuse anyway (no host, not http or https).
    static func key(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.host != nil
        else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        if scheme == "https" {
            components.path = "/"
            components.query = nil
        }
        return components.string
    }

    // MARK: - Loading

    /// The source for `pacURL`: the one loaded before if it is still current, or a fresh load
    /// (one at a time per URL: the others wait for it).
    private func load(_ pacURL: URL, timeout: TimeInterval) -> PACLoad.Result {
        enum Step {
            case ready(PACSource)
            case wait(PACLoad)
            case fetch(PACLoad)
        }
        let stamp = pacURL.isFileURL ? FileStamp(path: pacURL.path) : nil
        let step = sources.withLock { sources -> Step in
            switch sources[pacURL] {
            case .loaded(let source, let loadedStamp)? where !pacURL.isFileURL || loadedStamp == stamp:
                return .ready(source)
            case .loading(let load)?:
                return .wait(load)
            default:
                let load = PACLoad()
                sources[pacURL] = .loading(load)
                return .fetch(load)
            }
        }
        switch step {
        case .ready(let source):
            return .available(source)
        case .wait(let load):
            return load.wait()
        case .fetch(let load):
            let result = Self.fetchAndCompile(pacURL, timeout: timeout)
            sources.withLock { sources in
                if case .available(let source) = result {
                    sources[pacURL] = .loaded(source, stamp: stamp)
                } else {
                    // Not remembered: the next request tries again (ASI fetched for every request).
                    sources[pacURL] = nil
                }
            }
            load.finish(result)
            return result
        }
    }

    private static func fetchAndCompile(_ pacURL: URL, timeout: TimeInterval) -> PACLoad.Result {
        let text: String
        switch fetch(pacURL, timeout: timeout) {
        case .success(let fetched): text = fetched
        case .failure(let reason): return .unavailable(reason.message)
        }
        do {
            return .available(PACSource(script: .success(try PACScript(source: text))))
        } catch {
            return .available(PACSource(script: .failure(error)))
        }
    }

    /// The file's text: from the file system for a file URL, over Courier itself for http and
    /// https (direct, never through a proxy or the PAC file: browsers fetch PAC files so too).
    private static func fetch(_ pacURL: URL, timeout: TimeInterval) -> Result<String, PACScriptError> {
        let data: Data
        switch pacURL.scheme?.lowercased() {
        case "file":
            guard let contents = FileManager.default.contents(atPath: pacURL.path) else {
                return .failure(PACScriptError(message: "no readable file at \(pacURL.path)"))
            }
            data = contents
        case "http", "https":
            let request = HTTPRequest(url: pacURL)
            request.timeOutSeconds = timeout
            request.useCookiePersistence = false
            request.useSessionPersistence = false
            request.shouldPresentProxyAuthenticationDialog = false
            request.write(\.pac, PACRequestState(forcedDirect: ()))
            request.startSynchronous()
            if let error = request.error { return .failure(PACScriptError(message: error.description)) }
            guard (200..<300).contains(request.responseStatusCode) else {
                return .failure(PACScriptError(message: request.responseStatusMessage ?? "no response"))
            }
            data = request.responseData() ?? Data()
        default:
            return .failure(PACScriptError(message: "only file, http and https PAC URLs are read"))
        }
        return .success(String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) ?? "")
    }
}

/// A PAC file as loaded: compiled, or the reason it does not compile; and its answers so far.
final class PACSource: Sendable {
    let script: Result<PACScript, PACScriptError>
    private let answers = Locked<[String: Result<[PACChoice], PACScriptError>]>([:])

    init(script: Result<PACScript, PACScriptError>) {
        self.script = script
    }

    /// `FindProxyForURL(key, host)` parsed into choices, from memory when it was asked before.
    func answer(for key: String, host: String) -> Result<[PACChoice], PACScriptError> {
        let script: PACScript
        switch self.script {
        case .failure(let error): return .failure(error)
        case .success(let compiled): script = compiled
        }
        if let known = answers.withLock({ $0[key] }) { return known }
        let (answer, alerts) = script.findProxy(url: key, host: host)
        if !alerts.isEmpty { Log.message("the PAC file says: \(alerts)") }
        let result = answer.flatMap { text -> Result<[PACChoice], PACScriptError> in
            let (choices, skipped) = PACChoice.parse(text)
            if !skipped.isEmpty {
                Log.message("the PAC file's answer \"\(text)\" has entries not understood: \(skipped)")
            }
            guard !choices.isEmpty else {
                return .failure(
                    PACScriptError(message: "FindProxyForURL returned \"\(text)\", which names no proxy and not DIRECT")
                )
            }
            return .success(choices)
        }
        answers.withLock { answers in
            if answers.count >= PACResolver.answerLimit { answers.removeAll() }
            answers[key] = result
        }
        return result
    }
}

/// One load of a PAC file in progress, which other requests for the same file wait for.
final class PACLoad: @unchecked Sendable {
    // @unchecked Sendable: `result` is written once before `group.leave()` and read only after
    // `group.wait()` returns, which orders the two.
    enum Result: Sendable {
        case available(PACSource)
        case unavailable(String)
    }

    private let group = DispatchGroup()
    private var result: Result = .unavailable("the load did not finish")

    init() {
        group.enter()
    }

    func finish(_ result: Result) {
        self.result = result
        group.leave()
    }

    func wait() -> Result {
        group.wait()
        return result
    }
}

/// When a PAC file on disk last changed, to load it again after an edit.
struct FileStamp: Equatable, Sendable {
    var modified: Date?
    var size: Int64

    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        modified = attributes[.modificationDate] as? Date
        size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }
}
