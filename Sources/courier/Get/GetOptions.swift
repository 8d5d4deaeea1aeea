/// What `courier get` was asked to do, besides the URLs.
struct GetOptions: Equatable {
    /// The default for `-j`: as many transfers at once as ASI's queues ran.
    static let defaultJobs = 4

    /// The flags every request takes.
    var request = RequestOptions()
    /// `-o DIR`, as typed (nil: the current directory).
    var outputDirectory: String?
    /// `-O FILE`: the one URL's body goes there; "-" is standard output.
    var outputFile: String?
    /// `-j N`: at most this many transfers at once.
    var jobs = GetOptions.defaultJobs
    /// `-i FILE`: more URLs, one a line ("-": standard input).
    var inputFile: String?
    /// `-c, --continue`: resume `NAME.part` files, and keep them when a transfer fails.
    var resumes = false
    /// `--retry N`: try a transfer up to N more times after a retryable failure.
    var retries = 0
    /// `--cache DIR`: a `DownloadCache` there.
    var cacheDirectory: String?
    /// `--fail-fast`: the first transfer that fails for good cancels the rest.
    var failsFast = false
    /// `--content-disposition`: name files as the server's Content-Disposition says.
    var usesContentDisposition = false
    /// `--force`: replace existing files instead of choosing a free name.
    var overwrites = false
    /// `--accurate`: a HEAD per URL first, so the bar's total is exact from the start.
    var isAccurate = false
    /// `--include`: print each response's status line and headers.
    var includesHeaders = false
    /// `-D FILE`: every response's status line and headers go to FILE ("-": standard output).
    var headerDumpPath: String?
    /// `--json`: one JSON object per URL on standard output; the lines for people go to standard
    /// error.
    var writesJSON = false
    /// `--no-clobber`: a URL whose name is taken is skipped, not saved under a new name.
    var skipsExisting = false
    /// `-N, --timestamping`: ask only for what is newer than the file there, replace it, and give
    /// it the server's Last-Modified.
    var isTimestamping = false
    /// `--checksum ALGORITHM=HEX`: what the one URL's body must hash to.
    var checksum: ExpectedChecksum?
    /// `--checksums FILE`: an MD5SUMS or SHA256SUMS file each download is checked against.
    var checksumsPath: String?
    /// `-m, --max-time S`: each try may take at most S seconds in all.
    var maxTimeSeconds: Double?
    /// `--connect-timeout S`: each connection must be made within S seconds.
    var connectTimeoutSeconds: Double?
    /// `--speed-limit B`: a try slower than B bytes/s for `--speed-time` seconds fails.
    var speedLimit: Int64?
    /// `--speed-time S`.
    var speedTimeSeconds: Double?
    /// Where default options came from (`COURIER_OPTIONS`, the config file), for `-v`.
    var defaultsNotes: [String] = []

    /// `get`'s own flags, in the order the help lists them; then `RequestOptions.specs`.
    static let specs: [OptionSpec] = [
        OptionSpec("o", "output", value: "DIR", "save into DIR (created when missing; default .)"),
        OptionSpec("O", "output-file", value: "FILE", "save the one URL as FILE; - writes it to standard output"),
        OptionSpec("i", "input-file", value: "FILE", "read more URLs from FILE, one a line (- for standard input)"),
        OptionSpec("j", "jobs", value: "N", "at most N transfers at once (4)"),
        OptionSpec(
            "c", "continue",
            "resume NAME.part files left by an earlier run, keep them\nwhen a transfer fails, "
                + "and skip files already complete"),
        OptionSpec(
            nil, "retry", value: "N",
            "retry a transfer up to N times after a connection failure,\n"
                + "a timeout, or 408, 429, 500, 502, 503, 504 (backoff 1 s,\n2 s, 4 s ... 60 s, or as Retry-After says)"
        ),
        OptionSpec(nil, "fail-fast", "cancel the other transfers once one has failed"),
        OptionSpec(nil, "content-disposition", "name files as the server's Content-Disposition says"),
        OptionSpec(nil, "force", "replace existing files instead of choosing a free name"),
        OptionSpec(nil, "cache", value: "DIR", "keep a download cache in DIR and answer from it when fresh"),
        OptionSpec(nil, "accurate", "send a HEAD per URL first, so the bar's total is exact"),
    ]

    /// Every flag `get` takes.
    static let allSpecs = specs + featureSpecs + RequestOptions.specs + [.help]

    /// Takes one flag; false when it is none of `get`'s.
    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        if try request.take(spec, value, parsing: parsing) { return true }
        let flag = "--" + spec.long
        switch (spec.long, value) {
        case ("output", let value?):
            guard !value.isEmpty else { throw UsageError("\(flag) needs a directory", command: parsing.command) }
            outputDirectory = value
        case ("output-file", let value?):
            guard !value.isEmpty else { throw UsageError("\(flag) needs a file name", command: parsing.command) }
            outputFile = value
        case ("input-file", let value?): inputFile = value
        case ("jobs", let value?): jobs = try parsing.integer(value, for: "-j", in: 1...1000)
        case ("continue", _): resumes = true
        case ("retry", let value?): retries = try parsing.integer(value, for: flag, in: 0...100)
        case ("fail-fast", _): failsFast = true
        case ("content-disposition", _): usesContentDisposition = true
        case ("force", _): overwrites = true
        case ("cache", let value?): cacheDirectory = value
        case ("accurate", _): isAccurate = true
        default: return try takeFeature(spec, value, parsing: parsing)
        }
        return true
    }
}
