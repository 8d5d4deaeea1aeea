import Courier

/// What `courier page` was asked to do, besides the URL.
struct PageOptions: Equatable {
    /// `-o PATH`, as typed: the folder the page goes into, or with `--single-file` the file (or
    /// an existing folder for it). nil: the current folder.
    var output: String?
    /// `--single-file`: every resource inlined as a data: URI into one HTML file (monolith),
    /// rather than saved beside the page (wget -p -k).
    var isSingleFile = false
    /// `--max-depth N`: WebPageRequest's `maxDepth`.
    var maxDepth: Int?
    /// `--max-resources N`: WebPageRequest's `maxResources`.
    var maxResources: Int?
    /// `-j N`: WebPageRequest's `maxConcurrentResourceRequests`.
    var jobs: Int?
    /// `--fail-on-resource-errors`: one resource that cannot be fetched fails the page.
    var failsOnResourceErrors = false
    /// The request flags every command shares; the page's own origin alone gets its `-u` and `-H`
    /// (WebPageRequest's rule), its resources on other hosts do not.
    var request = RequestOptions()

    static let specs: [OptionSpec] = [
        OptionSpec(
            "o", "output", value: "PATH",
            "save into the folder PATH (created when missing; .);\nwith --single-file, the file PATH, or "
                + "NAME.html in\nPATH when it is a folder"),
        OptionSpec(
            nil, "single-file",
            "one self-contained HTML file: every resource inlined\nas a data: URI, none saved beside it"),
        OptionSpec(
            nil, "max-depth", value: "N",
            "follow resources N levels deep (4): 1 is the page's own\nstylesheets, images and frames; 2 their images"),
        OptionSpec(nil, "max-resources", value: "N", "fetch at most N resources in all (500)"),
        OptionSpec("j", "jobs", value: "N", "fetch at most N resources at once (4)"),
        OptionSpec(
            nil, "fail-on-resource-errors",
            "fail when a resource cannot be fetched (by default it\nkeeps its web URL and the page is saved)"),
    ]

    static let allSpecs = specs + RequestOptions.specs + [.help]

    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        if try request.take(spec, value, parsing: parsing) { return true }
        let flag = "--" + spec.long
        switch (spec.long, value) {
        case ("output", let value?):
            guard !value.isEmpty else { throw UsageError("--output needs a path", command: "page") }
            output = value
        case ("single-file", _): isSingleFile = true
        case ("max-depth", let value?): maxDepth = try parsing.integer(value, for: flag, in: 0...100)
        case ("max-resources", let value?): maxResources = try parsing.integer(value, for: flag, in: 0...100_000)
        case ("jobs", let value?): jobs = try parsing.integer(value, for: "-j", in: 1...100)
        case ("fail-on-resource-errors", _): failsOnResourceErrors = true
        default: return false
        }
        return true
    }

    /// Sets these options on the page: what is fetched, how many at once, and the request flags.
    func configure(_ page: WebPageRequest) {
        request.configure(page)
        page.urlReplacementMode = isSingleFile ? .replaceWithData : .replaceWithLocalURLs
        if let maxDepth { page.maxDepth = maxDepth }
        if let maxResources { page.maxResources = maxResources }
        if let jobs { page.maxConcurrentResourceRequests = jobs }
        page.shouldIgnoreExternalResourceErrors = !failsOnResourceErrors
    }
}
