/// The flags that show what happened, skip what is there, check what arrived and bound how long
/// a try may take. Kept apart from `GetOptions.specs` so each group reads as one list.
extension GetOptions {
    /// In the order the help lists them, after `specs`. `-i` is taken by `--input-file` (wget's
    /// letter), so curl's `-i/--include` is long-only here.
    static let featureSpecs: [OptionSpec] = [
        OptionSpec(
            nil, "include",
            "print each response's status line and headers before its\nresult line (before the body with -O -)"),
        OptionSpec(
            "D", "dump-header", value: "FILE",
            "write every response's status line and headers to FILE\n(- for standard output)"),
        OptionSpec(
            nil, "json",
            "print one JSON object per URL on standard output (url,\nfinal_url, status, file, bytes, seconds, attempts,\n"
                + "result, error); the other lines go to standard error"),
        OptionSpec(nil, "no-clobber", "skip a URL whose file name is taken, instead of choosing\na free one"),
        OptionSpec(
            "N", "timestamping",
            "fetch only what is newer than the file of that name\n(If-Modified-Since), replace it, and give it the\n"
                + "server's Last-Modified time"),
        OptionSpec(
            nil, "checksum", value: "ALGO=HEX", "fail the one URL unless its body hashes to HEX\n(sha-256 or md5)"),
        OptionSpec(
            nil, "checksums", value: "FILE",
            "check each file against the SHA256SUMS or MD5SUMS list\nFILE; a file it does not list fails"),
        OptionSpec("m", "max-time", value: "S", "fail a try that takes more than S seconds in all"),
        OptionSpec(nil, "connect-timeout", value: "S", "fail a try whose connection is not made within S seconds"),
        OptionSpec(nil, "speed-limit", value: "B", "fail a try slower than B bytes/s for --speed-time"),
        OptionSpec(nil, "speed-time", value: "S", "the seconds --speed-limit looks at (30)"),
    ]

    /// Takes one of `featureSpecs`; false when it is none of them.
    mutating func takeFeature(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        let flag = "--" + spec.long
        switch (spec.long, value) {
        case ("include", _): includesHeaders = true
        case ("dump-header", let value?):
            guard !value.isEmpty else { throw UsageError("\(flag) needs a file name", command: parsing.command) }
            headerDumpPath = value
        case ("json", _): writesJSON = true
        case ("no-clobber", _): skipsExisting = true
        case ("timestamping", _): isTimestamping = true
        case ("checksum", let value?): checksum = try ExpectedChecksum(parsing: value, command: parsing.command)
        case ("checksums", let value?):
            guard !value.isEmpty else { throw UsageError("\(flag) needs a file name", command: parsing.command) }
            checksumsPath = value
        case ("max-time", let value?): maxTimeSeconds = try parsing.seconds(value, for: flag)
        case ("connect-timeout", let value?): connectTimeoutSeconds = try parsing.seconds(value, for: flag)
        case ("speed-limit", let value?): speedLimit = try parsing.byteRate(value, for: flag)
        case ("speed-time", let value?): speedTimeSeconds = try parsing.seconds(value, for: flag)
        default: return false
        }
        return true
    }

    /// The flags of `featureSpecs` that cannot go together, or with the others; checked once
    /// every flag is read.
    func checkFeatures(hasOneURL: Bool) throws(UsageError) {
        func refuse(_ message: String) throws(UsageError) { throw UsageError(message, command: "get") }
        if outputFile == "-", writesJSON { try refuse("--json writes to standard output, and so does -O -: give one") }
        if outputFile == "-", isTimestamping || skipsExisting {
            try refuse("-O - writes to standard output: -N and --no-clobber do not apply")
        }
        if outputFile == "-", checksum != nil || checksumsPath != nil {
            try refuse("-O - writes bytes before they can be checked: save to a file to use a checksum")
        }
        if skipsExisting, overwrites {
            try refuse("--no-clobber keeps existing files and --force replaces them: give one")
        }
        if skipsExisting, isTimestamping {
            try refuse("--no-clobber and -N both decide about existing files: give one")
        }
        if isTimestamping, cacheDirectory != nil { try refuse("-N and --cache both revalidate: give one") }
        if headerDumpPath == "-", writesJSON {
            try refuse("--json writes to standard output, and so does -D -: give one")
        }
        if checksum != nil, checksumsPath != nil { try refuse("give --checksum or --checksums, not both") }
        if checksum != nil, !hasOneURL {
            try refuse("--checksum is for one URL (use --checksums FILE for several)")
        }
    }

    /// Whether a file of the same name is replaced: `--force`, or `-N` when the server's is newer.
    var replacesFiles: Bool { overwrites || isTimestamping }

    /// `--speed-limit` and `--speed-time` as curl pairs them: either alone takes the other's
    /// default (1 byte/s, 30 s); nil when neither is given.
    var lowSpeedLimit: (bytesPerSecond: Int64, seconds: Double)? {
        guard speedLimit != nil || speedTimeSeconds != nil else { return nil }
        return (speedLimit ?? 1, speedTimeSeconds ?? 30)
    }
}
