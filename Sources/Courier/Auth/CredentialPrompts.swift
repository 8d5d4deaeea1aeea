/// Only one request at a time asks a delegate (or the terminal) for the credentials of one server
/// or proxy and realm; the others wait, then look in the session store for what the first was
/// given (ASI's testDelegateAuthenticationCredentialsReuse: five requests, one question).
///
/// Any thread; its lock is a leaf, taken under no other and held across no call out.
final class CredentialPrompts: Sendable {
    static let shared = CredentialPrompts()

    struct Key: Sendable, Hashable {
        var isProxy: Bool
        var host: String
        var port: Int
        var realm: String?
    }

    private struct Prompt {
        var asker: ObjectIdentifier
        var waiting: [HTTPRequest] = []
    }

    private struct Prompts {
        var asking: [Key: Prompt] = [:]
        /// How many times someone finished asking for each key: a request that looked in the
        /// stores before the last one finished may have missed what it saved.
        var answers: [Key: Int] = [:]
    }

    private let prompts = Locked(Prompts())

    /// What `begin` tells a request that found no credentials.
    enum Begin: Equatable {
        /// Ask now.
        case ask
        /// Another request is asking: wait for its answer (`finish` hands this one back).
        case wait
        /// Another request finished asking after this one looked: look in the stores again.
        case lookAgain
    }

    /// How many times someone has finished asking for `key`; a request reads it before it looks
    /// in the stores and hands it to `begin`.
    func answersSoFar(_ key: Key) -> Int {
        prompts.withLock { $0.answers[key] ?? 0 }
    }

    /// Whether `request`, which found no credentials when `answers` had been given for `key`,
    /// asks now, waits for the request asking, or looks again (one finished asking since, and
    /// may have saved what it was told: ten requests met by one challenge ask once).
    func begin(_ key: Key, for request: HTTPRequest, lookedUpAfter answers: Int) -> Begin {
        prompts.withLock { prompts in
            if let prompt = prompts.asking[key] {
                if prompt.asker == ObjectIdentifier(request) { return .ask }
                prompts.asking[key]?.waiting.append(request)
                return .wait
            }
            if (prompts.answers[key] ?? 0) != answers { return .lookAgain }
            prompts.asking[key] = Prompt(asker: ObjectIdentifier(request))
            return .ask
        }
    }

    /// The asker is done (its credentials worked, or it gave up, failed or was cancelled): the
    /// requests that waited, to look again. Nothing when `request` was not asking for `key`.
    func finish(_ key: Key, for request: HTTPRequest) -> [HTTPRequest] {
        prompts.withLock { prompts in
            guard let prompt = prompts.asking[key], prompt.asker == ObjectIdentifier(request) else { return [] }
            prompts.asking[key] = nil
            prompts.answers[key, default: 0] += 1
            return prompt.waiting
        }
    }

    /// A waiting request ended (cancelled): it no longer waits.
    func stopWaiting(_ request: HTTPRequest) {
        prompts.withLock { prompts in
            for key in prompts.asking.keys { prompts.asking[key]?.waiting.removeAll { $0 === request } }
        }
    }
}
