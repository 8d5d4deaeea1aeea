import Foundation

/// What WebPageRequest does with the URLs of the resources it fetched (ASI's
/// `ASIURLReplacementMode`).
public enum WebPageURLReplacementMode: Sendable, Equatable {
    /// The page stays as it came, byte for byte; its resources are still fetched (and cached,
    /// with a `downloadCache`).
    case dontModify
    /// Each resource is written into the page as a `data:<type>;base64,...` URI, stylesheets'
    /// and frames' own resources within them: one self-contained file.
    case replaceWithData
    /// Each resource is saved beside the page (`cachePath(for:)`) and the page refers to it by a
    /// relative path; `a href` is made absolute.
    case replaceWithLocalURLs
}

/// ASIWebPageRequest: a page and everything it needs to display, fetched through one queue, for
/// offline reading.
///
/// An HTML answer is read with libxml2's HTML parser (tag soup too) and a CSS answer scanned for
/// `url(...)` and `@import`; each stylesheet, script, image (`src` and `srcset`), frame, media
/// file and what `style` elements and attributes name is fetched once, as a WebPageRequest of
/// its own whose `parentRequest` is the page, at most `maxConcurrentResourceRequests` at a time.
/// Stylesheets' and frames' resources are fetched in turn, down to `maxDepth`, at most
/// `maxResources` in all. `a href` and `data:` URIs are never fetched. The page then is
/// rewritten by `urlReplacementMode` and finishes last.
///
/// ```swift
/// let page = WebPageRequest(url: URL(string: "https://example.com/")!)
/// page.urlReplacementMode = .replaceWithData
/// page.downloadDestinationPath = "/tmp/example.html"  // one self-contained file
/// page.startSynchronous()
/// ```
///
/// Resources get the page's cookies, credentials and headers only on the page's own origin, and
/// never its conditional headers. They share its delegate (which hears each one's callbacks, as
/// in ASI), callback queue, download cache and cache policy, timeouts, TLS and proxy settings.
///
/// `@unchecked Sendable`: as HTTPRequest, plus `page`, which its own lock guards. That lock is
/// a leaf: never held with the request's or another.
open class WebPageRequest: HTTPRequest, @unchecked Sendable {
    struct PageState {
        var urlReplacementMode = WebPageURLReplacementMode.dontModify
        var shouldIgnoreExternalResourceErrors = true
        var maxConcurrentResourceRequests = 4
        var maxDepth = 4
        var maxResources = 500
        /// Set for a resource: the page whose tree it belongs to (ASI's `parentRequest`).
        weak var parentRequest: WebPageRequest?
        /// The page's tree being fetched: the page's own, or, for a resource, its page's.
        var fetch: WebPageFetch?
        /// How the resource was linked (nil for the page).
        var kind: WebPageReference.Kind?
    }

    final let page: Locked<PageState>

    /// A page to fetch with its resources; `.dontModify` until `urlReplacementMode` says
    /// otherwise.
    public required init(url: URL) {
        page = Locked(PageState())
        super.init(url: url)
        state.withLock {
            $0.config.reviewsResponses = true
            $0.config.reviewsSuccessfulResponses = true
        }
    }

    /// What happens to the page's URLs once its resources are fetched; `.dontModify` by default.
    public var urlReplacementMode: WebPageURLReplacementMode {
        get { page.withLock { $0.urlReplacementMode } }
        set { page.withLock { $0.urlReplacementMode = newValue } }
    }

    /// True (the default): a resource that fails keeps its original URL (made absolute) and the
    /// page succeeds. False: the page fails with the resource's error, and the rest are
    /// cancelled. (ASI wired this flag backwards.)
    public var shouldIgnoreExternalResourceErrors: Bool {
        get { page.withLock { $0.shouldIgnoreExternalResourceErrors } }
        set { page.withLock { $0.shouldIgnoreExternalResourceErrors = newValue } }
    }

    /// For a resource, the page that fetched it; nil for the page itself.
    public var parentRequest: WebPageRequest? { page.withLock { $0.parentRequest } }

    /// How many of the page's resources are fetched at once (4).
    public var maxConcurrentResourceRequests: Int {
        get { page.withLock { $0.maxConcurrentResourceRequests } }
        set { page.withLock { $0.maxConcurrentResourceRequests = max(1, newValue) } }
    }

    /// How deep resources are followed (4): the page is 0, what it names 1, a stylesheet's images
    /// and imports 2, and so on. Deeper URLs are left as they are (made absolute).
    public var maxDepth: Int {
        get { page.withLock { $0.maxDepth } }
        set { page.withLock { $0.maxDepth = max(0, newValue) } }
    }

    /// How many resources the page's whole tree may fetch (500): a page that names 10,000
    /// images fetches the first 500 and leaves the rest as they are (made absolute).
    public var maxResources: Int {
        get { page.withLock { $0.maxResources } }
        set { page.withLock { $0.maxResources = max(0, newValue) } }
    }

    /// What replaces `url` in this page (or this stylesheet, or frame): by default, the fetched
    /// resource's `data:` URI or relative path by `urlReplacementMode`; nil leaves the URL (made
    /// absolute). Called once the whole tree is fetched, off the engine thread; override to
    /// change what the saved page refers to.
    open func contentForExternalURL(_ url: URL) -> String? {
        page.withLock { $0.fetch }?.replacement(for: url, in: self)
    }

    /// Where a resource is saved with `.replaceWithLocalURLs`: by default beside the page
    /// (`DIR/index.html`'s resources in `DIR/index_files/`), or in a temporary folder when the
    /// page has no `downloadDestinationPath`; the file's name comes from the URL, with 8 hex
    /// digits of its hash so that two resources never share one.
    open func cachePath(for request: WebPageRequest) -> String {
        let (fetch, kind) = (page.withLock { $0.fetch }, request.page.withLock { $0.kind })
        let folder = fetch?.resourceFolder ?? NSTemporaryDirectory()
        return (folder as NSString).appendingPathComponent(WebPageFiles.fileName(for: request.url, kind: kind ?? .image))
    }

    /// Cancels the page and every resource it is fetching; the page fails with
    /// `requestCancelled`.
    open override func cancel() {
        // The resources first, silenced: none of their callbacks may follow the page's failure.
        if parentRequest == nil { page.withLock { $0.fetch }?.cancel() }
        super.cancel()
    }

    /// Copies the page's settings too (the replacement mode, the error flag, the bounds); a
    /// copy's resources are fetched afresh.
    open override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        guard let copy = copy as? WebPageRequest else { return }
        let settings = page.withLock { $0 }
        copy.page.withLock {
            $0.urlReplacementMode = settings.urlReplacementMode
            $0.shouldIgnoreExternalResourceErrors = settings.shouldIgnoreExternalResourceErrors
            $0.maxConcurrentResourceRequests = settings.maxConcurrentResourceRequests
            $0.maxDepth = settings.maxDepth
            $0.maxResources = settings.maxResources
        }
    }

    /// The page's body as it arrived (inflated), from memory or from the download's temporary
    /// file.
    func pageBody() -> Result<Data, HTTPRequestError> {
        let (body, isCompressed, codings, configuration, fromCache) = state.withLock {
            (
                $0.response.body, $0.response.isCompressed, $0.response.headerBlock.values(of: "Content-Encoding"),
                $0.config, $0.cacheRun.didUseCachedResponse
            )
        }
        var data = body ?? Data()
        // Downloaded, the page is in the temporary file; served from the cache, it was copied to
        // the destination itself.
        if data.isEmpty,
            let file = fromCache ? configuration.downloadDestinationPath : Self.temporaryPath(for: configuration),
            FileManager.default.fileExists(atPath: file)
        {
            guard let contents = FileManager.default.contents(atPath: file) else {
                return .failure(FileBodyWriter.error("read", path: file, errno: errno))
            }
            data = contents
        }
        guard isCompressed, configuration.shouldWaitToInflateCompressedResponses else { return .success(data) }
        do {
            return .success(try InflaterChain.inflate(data, contentEncodings: codings, limit: Self.maxInflatedBytes))
        } catch {
            return .failure(
                HTTPRequestError(
                    type: .compression, message: "The page could not be inflated: \(error)", url: url, underlyingError: error))
        }
    }

    /// The page as it is kept: `responseData()`, and the download's temporary file, which the
    /// request then moves to `downloadDestinationPath` as any download (nothing half-written
    /// appears there). `format` says the encoding the page declared in its body, if any.
    func finishPage(_ page: Data, original: Data, encoding format: WebPageDocument.Format?) -> ResponseReview {
        var declared: String.Encoding?
        if case .html(let encoding) = format { declared = encoding.declared }
        let (configuration, fromCache) = state.withLock { ($0.config, $0.cacheRun.didUseCachedResponse) }
        if fromCache, let destination = configuration.downloadDestinationPath {
            // Served from the cache: the stored page was copied into place; the rewritten one
            // replaces it in one step.
            if let error = Self.writeIntoPlace(page, at: destination, url: url) { return .fail(error) }
        } else if let temporary = Self.temporaryPath(for: configuration) {
            do {
                try page.write(to: URL(fileURLWithPath: temporary))
            } catch {
                return .fail(
                    HTTPRequestError(
                        type: .fileManagement, message: "Could not write the page to \(temporary): \(error)", url: url,
                        underlyingError: error))
            }
        }
        state.withLock {
            $0.response.body = page
            $0.response.isCompressed = false
            $0.response.declaredEncoding = declared
            $0.response.cacheBody = page == original ? nil : original
        }
        return .accept
    }

    /// The page's answer arrived: read it, fetch its tree, rewrite it; then the verdict. An
    /// error status is the page's answer as it is, and a resource is its page's to read.
    override func reviewResponse(then verdict: @escaping @Sendable (ResponseReview) -> Void) {
        DispatchQueue.global().async {
            WebPageFetch.start(for: self, then: verdict)
        }
    }
}
