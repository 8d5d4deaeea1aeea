/// What `courier demo` was asked to do.
struct DemoOptions: Equatable {
    /// `-o DIR`, as typed (nil: a temporary directory, removed afterwards).
    var outputDirectory: String?
    /// `-j N`.
    var jobs = GetOptions.defaultJobs
    /// False after `--no-progress`.
    var showsProgress = true

    static let specs: [OptionSpec] = [
        OptionSpec(
            "o", "output", value: "DIR", "keep the files in DIR (default: a temporary\nfolder, removed afterwards)"),
        OptionSpec("j", "jobs", value: "N", "at most N transfers at once (4)"),
        OptionSpec(nil, "no-progress", "draw no progress bar"),
    ]

    static let allSpecs = specs + [.help]

    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        switch (spec.long, value) {
        case ("output", let value?):
            guard !value.isEmpty else { throw UsageError("--output needs a directory", command: "demo") }
            outputDirectory = value
        case ("jobs", let value?): jobs = try parsing.integer(value, for: "-j", in: 1...1000)
        case ("no-progress", _): showsProgress = false
        default: return false
        }
        return true
    }
}
