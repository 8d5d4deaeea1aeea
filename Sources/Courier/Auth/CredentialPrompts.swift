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

    private let prompts = Locked([Key: Prompt]())

    /// True when `request` is to ask now; false when another request is asking for `key`, and
    /// `request` waits for it to finish.
    func begin(_ key: Key, for request: HTTPRequest) -> Bool {
        prompts.withLock { prompts in
            if prompts[key] == nil {
                prompts[key] = Prompt(asker: ObjectIdentifier(request))
                return true
            }
            if prompts[key]?.asker == ObjectIdentifier(request) { return true }
            prompts[key]?.waiting.append(request)
            return false
        }
    }

    /// The asker is done (its credentials worked, or it gave up, failed or was cancelled): the
    /// requests that waited, to look again. Nothing when `request` was not asking for `key`.
    func finish(_ key: Key, for request: HTTPRequest) -> [HTTPRequest] {
        prompts.withLock { prompts in
            guard let prompt = prompts[key], prompt.asker == ObjectIdentifier(request) else { return [] }
            prompts[key] = nil
            return prompt.waiting
        }
    }

    /// A waiting request ended (cancelled): it no longer waits.
    func stopWaiting(_ request: HTTPRequest) {
        prompts.withLock { prompts in
            for key in prompts.keys { prompts[key]?.waiting.removeAll { $0 === request } }
        }
    }
}
