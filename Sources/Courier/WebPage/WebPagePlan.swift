import struct Foundation.URL

/// Which resources a page's tree fetches, and when it is done: the page's one policy, a value
/// with no I/O (`WebPagePlanTests`).
///
/// Every URL found anywhere in the tree (the page, its stylesheets, its frames' pages) is
/// fetched at most once: a URL already fetched, being fetched, or the page's own is never asked
/// for again. That is the cycle guard (a stylesheet that imports itself, two that import each
/// other, a frame of the page itself) and the de-duplication at once. What lies deeper than
/// `maxDepth` (the page is 0, what it names 1) or past `maxResources` is not fetched; its URL
/// stays, made absolute, in the saved page.
struct WebPagePlan: Sendable {
    /// A resource of the tree.
    struct Resource: Sendable {
        let url: URL
        let kind: WebPageReference.Kind
        let depth: Int
        var outcome: Outcome = .fetching
    }

    enum Outcome: Sendable {
        case fetching
        case fetched
        case failed(HTTPRequestError)
    }

    /// What to do next, after an event.
    enum Step: Sendable {
        /// Wait for the fetches in flight.
        case wait
        /// Every resource has been fetched or has failed: rewrite the page.
        case assemble
        /// A resource failed and failures are not ignored: cancel the rest, whose ends come
        /// before the page's (its callbacks are the last).
        case cancelRest
        /// Every resource ended after one failed that is not ignored: fail the page with it.
        case fail(HTTPRequestError)
    }

    let maxDepth: Int
    let maxResources: Int
    let ignoresResourceErrors: Bool
    private(set) var resources: [Resource] = []
    /// Resource indices by URL key, the page's own URL included (as -1).
    private var known: [String: Int] = [:]
    private var inFlight = 0
    /// Resources fetched or failed.
    var endedCount: Int { resources.count - inFlight }
    /// Set once the plan said `.assemble` or `.fail`: later events change nothing.
    private(set) var isConcluded = false
    /// The first failure not ignored: nothing more is fetched, and the page fails with it.
    private(set) var failure: HTTPRequestError?

    init(pageURL: URL, maxDepth: Int, maxResources: Int, ignoresResourceErrors: Bool) {
        self.maxDepth = maxDepth
        self.maxResources = maxResources
        self.ignoresResourceErrors = ignoresResourceErrors
        known[Self.key(pageURL)] = -1
    }

    /// The key a URL is fetched by: its absolute form without the fragment (`a.png#x` is `a.png`).
    static func key(_ url: URL) -> String {
        let string = url.absoluteString
        guard let hash = string.firstIndex(of: "#") else { return string }
        return String(string[..<hash])
    }

    /// The index of the resource fetched for `url`, if the plan has one.
    func index(of url: URL) -> Int? {
        known[Self.key(url)].flatMap { $0 >= 0 ? $0 : nil }
    }

    /// A document at `depth` (the page is 0) named these URLs (resolved, in document order): the
    /// indices of the new resources to fetch.
    mutating func found(_ references: [(url: URL, kind: WebPageReference.Kind)], atDepth depth: Int) -> [Int] {
        guard !isConcluded, failure == nil, depth < maxDepth else { return [] }
        var added: [Int] = []
        for reference in references {
            guard resources.count < maxResources else { break }
            guard let scheme = reference.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { continue }
            let key = Self.key(reference.url)
            guard known[key] == nil, let url = URL(string: key) else { continue }
            known[key] = resources.count
            added.append(resources.count)
            resources.append(Resource(url: url, kind: reference.kind, depth: depth + 1))
        }
        inFlight += added.count
        return added
    }

    /// The page itself has been read and its resources (if any) asked for: with none in
    /// flight, the page is ready to rewrite.
    mutating func pageRead() -> Step {
        guard !isConcluded, inFlight == 0 else { return .wait }
        isConcluded = true
        return failure.map { .fail($0) } ?? .assemble
    }

    /// A resource ended: fetched (after what it names was passed to `found`), or failed.
    mutating func ended(_ index: Int, _ outcome: Outcome) -> Step {
        guard !isConcluded, resources.indices.contains(index), case .fetching = resources[index].outcome else { return .wait }
        resources[index].outcome = outcome
        inFlight -= 1
        if case .failed(let error) = outcome, !ignoresResourceErrors, failure == nil {
            failure = error
            if inFlight > 0 { return .cancelRest }
        }
        guard inFlight == 0 else { return .wait }
        isConcluded = true
        return failure.map { .fail($0) } ?? .assemble
    }

    /// The page was cancelled (or failed): nothing more is asked for, and no event concludes.
    mutating func conclude() {
        isConcluded = true
    }
}
