/// The flags `get` and `post` share: what every request is sent with, and how much is printed.
struct RequestOptions: Equatable {
    /// `-H 'Name: value'`, in order; repeats allowed.
    var headers: [HeaderLine] = []
    /// `-A UA`: the User-Agent (nil: Courier's own).
    var userAgent: String?
    /// `-u USER[:PASS]`: the user name; the password is asked for on the terminal when missing.
    var username: String?
    var password: String?
    /// `--proxy URL`.
    var proxy: ProxySetting?
    /// `--cacert FILE`: the CA certificates (PEM) that server certificates are checked against.
    var caBundlePath: String?
    /// `-k, --insecure`: no certificate check at all.
    var isInsecure = false
    /// `--timeout S`: seconds without progress before a request fails (nil: Courier's 10).
    var timeoutSeconds: Double?
    /// `--max-redirs N` (nil: Courier's 5).
    var maxRedirects: Int?
    /// `--limit-rate RATE`: bytes per second for all transfers together (nil: unlimited).
    var bandwidthLimit: Int64?
    /// `-v, --verbose`: Courier's debug log on standard error.
    var isVerbose = false
    /// `-q, --quiet`: no progress bar and no result lines; failures only.
    var isQuiet = false
    /// False after `--no-progress`.
    var showsProgress = true

    /// The flags these options read, in the order the help lists them.
    static let specs: [OptionSpec] = [
        OptionSpec("H", "header", value: "'NAME: VALUE'", "send this request header (repeatable)"),
        OptionSpec("A", "user-agent", value: "UA", "send this User-Agent"),
        OptionSpec(
            "u", "user", value: "USER[:PASS]",
            "authenticate as USER (Basic, Digest or NTLM, as the\nserver asks); without :PASS, ask on the terminal"),
        OptionSpec(
            nil, "proxy", value: "URL",
            "use this proxy: http://, https://, socks4://, socks4a://,\n"
                + "socks5:// or socks5h://, with USER:PASS@ if it asks"
        ),
        OptionSpec(nil, "cacert", value: "FILE", "trust the CA certificates (PEM) in FILE"),
        OptionSpec("k", "insecure", "do not verify the server's certificate"),
        OptionSpec(
            nil, "timeout", value: "S", "fail a transfer after S seconds without progress\n(10; 0 waits forever)"),
        OptionSpec(nil, "max-redirs", value: "N", "follow at most N redirects (5); 0 follows none"),
        OptionSpec(
            nil, "limit-rate", value: "RATE",
            "all transfers together at most RATE bytes/s, shared fairly\n(100k = 100,000; 2M; 2Mi = 2 MiB)"),
        OptionSpec("v", "verbose", "print Courier's debug log on standard error"),
        OptionSpec("q", "quiet", "print failures only: no bar, no result lines"),
        OptionSpec(nil, "no-progress", "draw no progress bar"),
    ]

    /// Takes one flag if it is one of `specs`; false when it is not.
    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        let flag = "--" + spec.long
        switch (spec.long, value) {
        case ("header", let value?): headers.append(try parsing.header(value, for: flag))
        case ("user-agent", let value?): userAgent = value
        case ("user", let value?):
            guard !value.isEmpty, !value.hasPrefix(":") else {
                // Not quoted back: what follows the colon is a password.
                throw UsageError("\(flag) needs a user name before the colon", command: parsing.command)
            }
            if let colon = value.firstIndex(of: ":") {
                username = String(value[..<colon])
                password = String(value[value.index(after: colon)...])
            } else {
                username = value
                password = nil
            }
        case ("proxy", let value?): proxy = try ProxySetting(parsing: value, command: parsing.command)
        case ("cacert", let value?): caBundlePath = value
        case ("insecure", _): isInsecure = true
        case ("timeout", let value?): timeoutSeconds = try parsing.seconds(value, for: flag, allowingZero: true)
        case ("max-redirs", let value?): maxRedirects = try parsing.integer(value, for: flag, in: 0...50)
        case ("limit-rate", let value?): bandwidthLimit = try parsing.byteRate(value, for: flag)
        case ("verbose", _): isVerbose = true
        case ("quiet", _): isQuiet = true
        case ("no-progress", _): showsProgress = false
        default: return false
        }
        return true
    }

    /// Whether a progress bar is drawn.
    var drawsProgress: Bool { showsProgress && !isQuiet }
}
