import Foundation

/// A site for one WebPageRequest test, made by a pure function of its folder (the folder only
/// gives the other origin's absolute URLs): the files to write, the page to request, and what a
/// correct request fetches and never fetches.
///
/// ```swift
/// let folder = try WebPageSite.shared.makeFolder()
/// let fixture = WebPageFixture.imports(in: folder)
/// try folder.write(fixture)
/// // … request folder.url(fixture.page) …
/// XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
/// XCTAssertTrue(fixture.neverRequested.isDisjoint(with: try folder.requestedFiles()))
/// ```
///
/// The builders are in `WebPageFixture+*.swift`. Every image is a real PNG (``TestPNG``) of its
/// own colour, unless a builder says otherwise; video and audio files are a few bytes of text
/// that no browser would play (no test plays them).
struct WebPageFixture: Sendable {
    /// Every file to write (`folder.write(fixture)`), decoys included.
    var files: [WebPageFile: Data]
    /// The page to request, on the page origin, relative to the folder.
    var page: String
    /// The requests the page itself makes: ``page``, then, after a redirect, where it lands.
    var pageRequests: [WebPageFile]
    /// Every resource a correct request fetches when its bounds (`maxDepth` 4 and
    /// `maxResources` 500 by default) allow, each exactly once; the page is not among them.
    var resources: Set<WebPageFile>
    /// Files (most of them written, as decoys) that a correct request never asks for: links,
    /// icons, paths resolved against the wrong base.
    var neverRequested: Set<WebPageFile>
    /// Resources that are requested but fail (404, a closed connection): a rewritten page keeps
    /// their absolute URL.
    var failingResources: Set<WebPageFile>

    init(
        page: String, files: [WebPageFile: Data], resources: Set<WebPageFile>,
        neverRequested: Set<WebPageFile> = [], failingResources: Set<WebPageFile> = [],
        pageRequests: [WebPageFile]? = nil
    ) {
        self.page = page
        self.files = files
        self.resources = resources
        self.neverRequested = neverRequested
        self.failingResources = failingResources
        self.pageRequests = pageRequests ?? [.page(page)]
        assert(resources.isDisjoint(with: neverRequested), "a resource both fetched and never requested")
        assert(
            resources.subtracting(failingResources).allSatisfy { files[$0] != nil },
            "every resource that succeeds has a file")
    }

    /// What the access log of a correct request shows, sorted: the page's requests and every
    /// resource, each once.
    var expectedRequests: [WebPageFile] {
        (pageRequests + resources).sorted()
    }

    /// The bytes of `file` on the server.
    func data(_ file: WebPageFile) -> Data? {
        files[file]
    }

    /// The bytes of `path` on the page origin.
    func data(_ path: String) -> Data? {
        files[.page(path)]
    }

    /// UTF-8 bytes, for the builders' text files.
    static func utf8(_ text: String) -> Data { Data(text.utf8) }

    /// Placeholder bytes for a media file (video, audio) nobody decodes: distinct per name.
    static func media(_ name: String) -> Data { Data("media file \(name), not really encoded\n".utf8) }
}
