import Foundation

/// A page's tree being fetched: the page's `WebPagePlan`, the queue its resources run through,
/// what each brought back, and, once all are in, the rewritten page.
///
/// Everything here runs on worker threads (the review's, and one per ended resource): never on
/// the engine thread or under another lock. A resource's end reaches it after the resource's
/// own callbacks were delivered (it shares the page's mailbox), so the page's delegate hears
/// every resource before the page.
///
/// `@unchecked Sendable`: `state` is a `Locked` (a leaf lock: nothing else is taken while it is
/// held); the rest is set in `init`, and `madeResourceFolder` in `start` before any resource is
/// asked for.
final class WebPageFetch: @unchecked Sendable {
    private struct State {
        var plan: WebPagePlan
        /// The requests made for the plan's resources, by index.
        var requests: [Int: WebPageRequest] = [:]
        /// What each fetched resource brought back, by index.
        var results: [Int: Fetched] = [:]
        /// Resources whose data URIs are being worked out (a cycle through them stays a URL),
        /// and those worked out.
        var assembling: Set<Int> = []
        var assembled: [Int: Data] = [:]
        var verdict: (@Sendable (ResponseReview) -> Void)?
        /// The page was cancelled or failed: what its resources saved goes, as it comes.
        var discardsFiles = false
    }

    /// What a resource brought back.
    private struct Fetched {
        var contentType: String?
        /// Its body (nil when it went to a file: `.replaceWithLocalURLs`).
        var body: Data?
        /// Where it was saved (`.replaceWithLocalURLs`).
        var path: String?
        /// Its stylesheet or page, read.
        var document: WebPageDocument?
    }

    private let state: Locked<State>
    private weak var page: WebPageRequest?
    let mode: WebPageURLReplacementMode
    /// Where resources are saved with `.replaceWithLocalURLs` (`WebPageRequest.cachePath(for:)`).
    let resourceFolder: String?
    /// Where the page will be (nil: not saved), for the relative paths to its resources.
    private let pagePath: String?
    /// Whether this page made `resourceFolder` (then it goes, emptied, if the page fails).
    private var madeResourceFolder = false
    private let queue: NetworkQueue
    private let defaultEncoding: String.Encoding
    /// Hands the resources' bytes to the page's download progress delegate.
    private let progress: ResourceProgress

    private init(page: WebPageRequest, plan: WebPagePlan, mode: WebPageURLReplacementMode, concurrency: Int) {
        self.page = page
        self.mode = mode
        state = Locked(State(plan: plan))
        pagePath = page.read(\.config.downloadDestinationPath)
        defaultEncoding = page.read(\.config.defaultResponseEncoding)
        if mode == .replaceWithLocalURLs {
            resourceFolder =
                pagePath.map(WebPageFiles.resourceFolder(besidePage:))
                ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("courier-web-page-" + UUID().uuidString)
        } else {
            resourceFolder = nil
        }
        progress = ResourceProgress(page: page)
        queue = NetworkQueue()
        queue.maxConcurrentOperationCount = concurrency
        queue.shouldCancelAllRequestsOnFailure = false
        // Progress counts resources (`reportProgress`): an accurate queue would send a HEAD
        // before each GET.
        queue.showAccurateProgress = false
    }

    // MARK: - The page

    /// Reads the page's answer and fetches what it names; the verdict comes once the tree is
    /// fetched and the page rewritten (or at once, for an answer that is no page).
    static func start(for page: WebPageRequest, then verdict: @escaping @Sendable (ResponseReview) -> Void) {
        let settings = page.page.withLock { $0 }
        let (status, contentType, finalURL) = page.state.withLock {
            ($0.response.statusCode, $0.response.headerBlock.value(of: "Content-Type"), $0.config.url)
        }
        guard settings.parentRequest == nil, status < 300 else { return verdict(.accept) }
        let body: Data
        switch page.pageBody() {
        case .success(let data): body = data
        case .failure(let error): return verdict(.fail(error))
        }
        let plan = WebPagePlan(
            pageURL: finalURL, maxDepth: settings.maxDepth, maxResources: settings.maxResources,
            ignoresResourceErrors: settings.shouldIgnoreExternalResourceErrors)
        guard
            let document = WebPageDocument.read(
                body, contentType: contentType, url: finalURL, linkedAs: nil,
                defaultEncoding: page.read(\.config.defaultResponseEncoding))
        else {
            return verdict(page.finishPage(body, original: body, encoding: nil))
        }
        let fetch = WebPageFetch(
            page: page, plan: plan, mode: settings.urlReplacementMode, concurrency: settings.maxConcurrentResourceRequests)
        // Before the fetch is published: `madeResourceFolder` is written only here.
        if let folder = fetch.resourceFolder {
            do {
                fetch.madeResourceFolder = !FileManager.default.fileExists(atPath: folder)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                return verdict(
                    .fail(
                        HTTPRequestError(
                            type: .fileManagement, message: "Could not make the folder for the page's resources, \(folder): \(error)",
                            url: finalURL, underlyingError: error)))
            }
        }
        fetch.state.withLock {
            $0.results[-1] = Fetched(contentType: contentType, body: body, path: nil, document: document)
            $0.verdict = verdict
        }
        page.page.withLock { $0.fetch = fetch }
        // However the page ends (a cancel, its queue's), its resources end with it.
        page.whenTerminalDelivered { fetch.cancel() }
        let added = fetch.state.withLock { $0.plan.found(document.references, atDepth: 0) }
        Log.message("\(Log.masked(finalURL)) names \(document.references.count) resources; fetching \(added.count)")
        fetch.enqueue(added)
        fetch.queue.go()
        fetch.perform(fetch.state.withLock { $0.plan.pageRead() })
    }

    /// Stops every resource; the page's verdict, if not given yet, is never given (the page was
    /// cancelled, which ends it).
    func cancel() {
        let (isNew, requests) = state.withLock { state in
            defer { state.plan.conclude() }
            state.verdict = nil
            return (!state.plan.isConcluded, Array(state.requests.values))
        }
        guard isNew else { return }
        Self.stop(requests)
        queue.cancelAllOperations()
        discardSavedFiles()
        release(requests)
    }

    /// Cancels resources the page no longer waits for, silently: the page's end is its delegate's
    /// last callback, and a cancelled resource's failure would come after it (a transfer's end
    /// is delivered once the engine has stopped it).
    private static func stop(_ requests: [WebPageRequest]) {
        for request in requests where !request.complete { request.clearDelegatesAndCancel() }
    }

    /// A page that does not finish leaves nothing of its resources beside it: the files saved
    /// so far go now, those of resources still ending as they end (`resourceEnded`).
    private func discardSavedFiles() {
        let paths = state.withLock { state in
            state.discardsFiles = true
            return state.results.compactMap { $1.path }
        }
        for path in paths { discard(path) }
    }

    private func discard(_ path: String) {
        unlink(path)
        if madeResourceFolder, let resourceFolder { rmdir(resourceFolder) }
    }

    /// The resources let go of the tree, which holds them: no cycle outlives the page.
    private func release(_ requests: [WebPageRequest]) {
        for request in requests { request.page.withLock { $0.fetch = nil } }
    }

    /// Tells the page's download progress delegate how many of the tree's resources have ended,
    /// the page counting as one: through the page's mailbox, so in order with its callbacks.
    private func reportProgress() {
        guard let page,
            let mailbox = page.state.withLock({ $0.downloadProgressDelegateIsSet ? $0.mailbox : nil })
        else { return }
        let fraction = state.withLock { Double(1 + $0.plan.endedCount) / Double(1 + $0.plan.resources.count) }
        mailbox.post { [weak page] in page?.downloadProgressDelegate?.setProgress(fraction) }
    }

    private func perform(_ step: WebPagePlan.Step) {
        reportProgress()
        switch step {
        case .wait:
            break
        case .cancelRest:
            queue.cancelAllOperations()
        case .fail(let error):
            discardSavedFiles()
            conclude(.fail(error))
        case .assemble:
            conclude(assemble())
        }
    }

    private func conclude(_ review: ResponseReview) {
        let (verdict, requests) = state.withLock { state in
            state.plan.conclude()
            defer { state.verdict = nil }
            return (state.verdict, Array(state.requests.values))
        }
        release(requests)
        verdict?(review)
    }

    // MARK: - Resources

    private func enqueue(_ indices: [Int]) {
        guard !indices.isEmpty, let page else { return }
        let (resources, isConcluded) = state.withLock { state in
            (indices.map { state.plan.resources[$0] }, state.plan.isConcluded)
        }
        guard !isConcluded else { return }
        let pageOrigin = Self.origin(of: page.read(\.config.url))
        // The user's credentials were for the URL they asked for: after a redirect to another
        // origin the page itself no longer presents them (`ownCredential`), nor do its resources.
        let credentialOrigin = page.read(\.config.shouldSendCredentialsAcrossRedirects) ? nil : page.originalURL
        let (configuration, delegate, selectors, mailbox) = page.state.withLock {
            ($0.config, $0.delegate, $0.selectors, $0.mailbox)
        }
        var requests: [Int: WebPageRequest] = [:]
        for (index, resource) in zip(indices, resources) {
            let request = type(of: page).init(url: resource.url)
            var configuration = configuration
            let mayPresentCredentials = credentialOrigin.map { RedirectPolicy.isSameAuthority($0, resource.url) } ?? true
            Self.prepare(
                &configuration, for: resource.url, sameOrigin: Self.origin(of: resource.url) == pageOrigin,
                mayPresentCredentials: mayPresentCredentials)
            request.page.withLock {
                $0.parentRequest = page
                $0.fetch = self
                $0.kind = resource.kind
                $0.urlReplacementMode = mode
            }
            if mode == .replaceWithLocalURLs { configuration.downloadDestinationPath = page.cachePath(for: request) }
            request.state.withLock {
                $0.config = configuration
                $0.delegate = delegate
                $0.selectors = selectors
                $0.downloadProgressDelegate = progress
                // One mailbox for the tree: the page's callbacks follow its resources', and a
                // page run synchronously delivers its resources' on the waiting thread too.
                $0.mailbox = mailbox
            }
            request.whenTerminalDelivered { [self] in
                DispatchQueue.global().async { self.resourceEnded(index, request) }
            }
            requests[index] = request
        }
        state.withLock { $0.requests.merge(requests) { $1 } }
        for index in indices { if let request = requests[index] { queue.addOperation(request) } }
    }

    /// A resource's settings: the page's, for a GET of `url`, with no body, no conditional or
    /// range headers, and, off the page's origin, none of its cookies, credentials or headers;
    /// without `mayPresentCredentials` (the page was redirected off the origin they were for),
    /// none of its own credentials either.
    private static func prepare(
        _ configuration: inout RequestConfiguration, for url: URL, sameOrigin: Bool, mayPresentCredentials: Bool
    ) {
        configuration.url = url
        configuration.requestMethod = "GET"
        configuration.methodWasSet = false
        configuration.postBody = nil
        configuration.postBodyFilePath = nil
        configuration.shouldStreamPostDataFromDisk = false
        configuration.diskBody = []
        configuration.bodyStream = nil
        configuration.builtBodyContentType = nil
        configuration.unreadableBodyFile = nil
        configuration.unwritableBodyFile = nil
        configuration.unbuildableBody = nil
        configuration.downloadDestinationPath = nil
        configuration.temporaryFileDownloadPath = nil
        configuration.allowResumeForFileDownloads = false
        configuration.parsingBlock = nil
        configuration.reviewsResponses = false
        configuration.reviewsSuccessfulResponses = false
        for name in conditionalHeaders { configuration.requestHeaders.remove(name: name) }
        if !sameOrigin {
            configuration.requestHeaders = HTTPHeaders()
            configuration.requestCookies = []
            configuration.useCookiePersistence = false
            configuration.auth.username = nil
            configuration.auth.password = nil
            configuration.auth.domain = nil
            configuration.auth.scheme = nil
            configuration.auth.useSessionPersistence = false
            configuration.auth.useKeychainPersistence = false
            configuration.auth.shouldPresentAuthenticationDialog = false
        }
        if !mayPresentCredentials {
            configuration.auth.username = nil
            configuration.auth.password = nil
            configuration.auth.domain = nil
            configuration.auth.scheme = nil
        }
    }

    /// The headers that make a request conditional or partial: the page's say nothing of its
    /// resources.
    static let conditionalHeaders = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// Scheme, host and port (the scheme's default when the URL names none).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return scheme + "://" + (url.host?.lowercased() ?? "") + ":" + String(port)
    }

    /// A resource ended, its callbacks delivered: read it (a stylesheet's or a frame's own
    /// resources are fetched in turn), then tell the plan.
    private func resourceEnded(_ index: Int, _ request: WebPageRequest) {
        Log.message("resource \(index) (\(Log.masked(request.url))) ended")
        guard let resource = state.withLock({ $0.plan.resources.indices.contains(index) ? $0.plan.resources[index] : nil })
        else { return }
        let (error, status, contentType, finalURL, path) = request.state.withLock {
            (
                $0.core.error, $0.response.statusCode, $0.response.headerBlock.value(of: "Content-Type"), $0.config.url,
                $0.config.downloadDestinationPath
            )
        }
        if let path, state.withLock({ $0.discardsFiles }) { discard(path) }
        if let error { return perform(state.withLock { $0.plan.ended(index, .failed(error)) }) }
        guard status < 400 else {
            // The error page is not the resource: nothing of it stays beside the saved page.
            if let path { unlink(path) }
            let error = HTTPRequestError(
                type: .serviceError, message: "The page's resource \(Log.masked(resource.url)) answered \(status)",
                url: resource.url)
            return perform(state.withLock { $0.plan.ended(index, .failed(error)) })
        }
        guard status != 0 else {
            // No answer and no error: `.dontLoad` found nothing in the cache. Not fetched, the
            // resource keeps its URL rather than become an empty data URI or file.
            if let path { unlink(path) }
            let error = HTTPRequestError(
                type: .connectionFailure,
                message: "The page's resource \(Log.masked(resource.url)) is not in the cache, and the cache policy does not load",
                url: resource.url)
            return perform(state.withLock { $0.plan.ended(index, .failed(error)) })
        }
        var fetched = Fetched(contentType: contentType, body: nil, path: path, document: nil)
        let mayNameResources = resource.kind == .stylesheet || resource.kind == .frame
        if path == nil || mayNameResources {
            let body = path.map { FileManager.default.contents(atPath: $0) ?? Data() } ?? request.responseData() ?? Data()
            if path == nil { fetched.body = body }
            if mayNameResources {
                fetched.document = WebPageDocument.read(
                    body, contentType: contentType, url: finalURL, linkedAs: resource.kind, defaultEncoding: defaultEncoding)
            }
        }
        let added = state.withLock { state -> [Int] in
            state.results[index] = fetched
            return fetched.document.map { state.plan.found($0.references, atDepth: resource.depth) } ?? []
        }
        enqueue(added)
        perform(state.withLock { $0.plan.ended(index, .fetched) })
    }

    // MARK: - Rewriting

    /// Rewrites the stylesheets and frames saved beside the page, then the page: its verdict.
    private func assemble() -> ResponseReview {
        guard let page, let pageResult = state.withLock({ $0.results[-1] }), let document = pageResult.document else {
            return .accept
        }
        guard mode != .dontModify else {
            return page.finishPage(document.bytes, original: document.bytes, encoding: document.format)
        }
        if mode == .replaceWithLocalURLs {
            let saved = state.withLock { state in
                state.results.compactMap { index, fetched -> (WebPageRequest, WebPageDocument, String)? in
                    guard index >= 0, let document = fetched.document, let path = fetched.path,
                        let request = state.requests[index]
                    else { return nil }
                    return (request, document, path)
                }
            }
            for (request, document, path) in saved {
                guard let rewritten = rewritten(document, by: request) else { continue }
                if let error = HTTPRequest.writeIntoPlace(rewritten, at: path, url: request.url) { return .fail(error) }
            }
        }
        guard let rewritten = rewritten(document, by: page) else {
            return .fail(
                HTTPRequestError(
                    type: .fileManagement, message: "libxml2 cannot write the page back in its encoding", url: page.url))
        }
        return page.finishPage(rewritten, original: document.bytes, encoding: document.format)
    }

    /// `document` with its URLs replaced by what `owner` (the page, or the resource the document
    /// is) says of each: a resource not fetched, or refused by `contentForExternalURL`, is
    /// written as its absolute URL.
    private func rewritten(_ document: WebPageDocument, by owner: WebPageRequest) -> Data? {
        document.rewritten(
            resource: { url in
                guard let replacement = owner.contentForExternalURL(url) else { return url.absoluteString }
                guard let fragment = url.fragment, !replacement.contains("#") else { return replacement }
                return replacement + "#" + fragment
            },
            link: { $0.absoluteString },
            removesBase: true)
    }

    /// The default `contentForExternalURL`: the fetched resource's data URI (its own resources
    /// within it) or its path relative to `owner`'s file; nil when it was not fetched.
    func replacement(for url: URL, in owner: WebPageRequest) -> String? {
        guard let index = state.withLock({ $0.plan.index(of: url) }),
            let fetched = state.withLock({ $0.results[index] })
        else { return nil }
        switch mode {
        case .dontModify:
            return nil
        case .replaceWithLocalURLs:
            guard let path = fetched.path else { return nil }
            let ownerPath = owner.parentRequest == nil ? pagePath : owner.read(\.config.downloadDestinationPath)
            return WebPageFiles.reference(to: path, from: ownerPath)
        case .replaceWithData:
            guard let data = content(of: index, fetched) else { return nil }
            let type = fetched.contentType.map { $0.filter { !$0.isWhitespace } }.flatMap { $0.isEmpty ? nil : $0 }
            return "data:" + (type ?? "application/octet-stream") + ";base64," + data.base64EncodedString()
        }
    }

    /// A resource's bytes for its data URI: a stylesheet's or frame's with its own resources
    /// inlined (worked out once), nil while it is being worked out (a cycle).
    private func content(of index: Int, _ fetched: Fetched) -> Data? {
        guard let document = fetched.document else { return fetched.body }
        let (cached, isBusy, request) = state.withLock { state in
            (state.assembled[index], state.assembling.contains(index), state.requests[index])
        }
        if let cached { return cached }
        guard !isBusy, let request else { return nil }
        state.withLock { _ = $0.assembling.insert(index) }
        let data = rewritten(document, by: request) ?? document.bytes
        state.withLock {
            $0.assembling.remove(index)
            $0.assembled[index] = data
        }
        return data
    }
}

/// The page's download progress delegate hears its resources' bytes as they arrive and the
/// sizes they announce, so a byte count (`courier page`'s bar) covers the whole page. Their own
/// fractions are not passed on: the page's fraction counts resources (`reportProgress`).
/// Runs on the callback thread, where the resources' progress is delivered.
private final class ResourceProgress: ProgressDelegate {
    private weak var page: WebPageRequest?

    init(page: WebPageRequest) {
        self.page = page
    }

    func setProgress(_ progress: Double) {}

    func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64) {
        page?.downloadProgressDelegate?.request(request, didReceiveBytes: bytes)
    }

    func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64) {
        page?.downloadProgressDelegate?.request(request, incrementDownloadSizeBy: bytes)
    }
}
