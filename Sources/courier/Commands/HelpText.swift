/// `courier --help` and each command's help, built from the commands' `OptionSpec`s so that the
/// help always lists exactly the flags the parser takes.
enum HelpText {
    /// The exit status for a command line that cannot run (as BSD's `EX_USAGE` tools use 2).
    static let usageExitStatus: Int32 = 2

    /// One command's help: what it does, its flags, examples.
    struct CommandHelp {
        let usage: String
        let description: String
        let specs: [OptionSpec]
        let notes: String
        let examples: [String]
    }

    static let overview = """
        usage: courier COMMAND [OPTIONS] ...

        Commands:
          get URL...     download every URL to a file, in parallel, with a progress bar;
                         resume, retry, authenticate, use a proxy or a cache
          post URL       send a form (-F) or a body (--data) and print the response
          s3 ls|cp|rm|mb|rb|presign
                         list, copy, remove and presign S3 objects, make and remove
                         buckets, on AWS or an S3-compatible service
          page URL       save a web page with its stylesheets, scripts and images for
                         offline reading, beside it or inlined into one file
          demo           start a test server on 127.0.0.1 and download a mixed batch
                         from it, verifying every byte
          help COMMAND   show a command's options and examples
          completion SHELL
                         print a bash or zsh completion script
          man            print the manual page (courier.1)

        Options:
          -h, --help     show this help
              --version  print the version of courier and of libcurl, with its
                         protocols and features

        Examples:
          courier get -o downloads https://example.org/a.iso https://example.org/b.iso
          courier post https://example.org/upload -F name=ada -F file=@report.pdf
          courier s3 cp backup.tar s3://archive/2024/
          courier page -o saved https://example.org/article.html
          courier demo

        Run 'courier help get' (or 'courier get --help') for a command's options.
        """

    /// One line per command, for completions and the manual page.
    static let summaries: [String: String] = [
        "get": "download every URL to a file, in parallel",
        "post": "send a form or a body and print the response",
        "s3": "list, copy, remove and presign S3 objects; make and remove buckets",
        "page": "save a web page with its resources for offline reading",
        "demo": "download a verified batch from a test server",
        "help": "show a command's options and examples",
        "completion": "print a bash or zsh completion script",
        "man": "print the manual page",
    ]

    /// What the manual page says first, before each command's own section.
    static let summaryParagraph = """
        courier downloads files in parallel with a progress bar (get), sends forms and bodies
        (post), copies to and from S3 (s3), saves web pages for offline reading (page), and demonstrates downloads against a test server of its own (demo). It is built on
        Courier, a Swift HTTP library on libcurl.

        Default options for get come from ~/.config/courier/config and COURIER_OPTIONS (see
        ENVIRONMENT and FILES); the command line comes after them.
        """

    static let commands: [String: CommandHelp] = [
        "get": CommandHelp(
            usage: "courier get [OPTIONS] URL...",
            description: """
                Downloads every URL, at most -j at a time, each straight to a file: the body goes to
                NAME.part and is renamed to NAME only once complete, so a failed download leaves
                nothing under NAME. A file is named after its URL's last path component
                ("index.html" when there is none); an existing file is never replaced without
                --force: the new one gets a free name, "NAME (1).ext". A response with a status of
                400 or above is reported, not saved, and so is a body that cannot be decoded.
                """,
            specs: GetOptions.allSpecs,
            notes: """
                The progress bar goes to standard error: redrawn in place on a terminal, a plain line
                at every tenth of the way otherwise. Result lines and the summary go to standard output
                (to standard error with -O -). Ctrl-C clears the bar, prints the summary, keeps the
                .part files for -c, and exits 130. Passwords are never printed.

                Exit status: 0 when every URL was saved; 1 when one failed; 2 for a usage error;
                130 when interrupted.
                """,
            examples: [
                "courier get -o isos -j 2 https://example.org/a.iso https://example.org/b.iso",
                "courier get -c --retry 5 --timeout 30 https://example.org/big.tar.gz",
                "courier get -i urls.txt --limit-rate 2M --fail-fast",
                "courier get -u ada https://example.org/private/report.pdf",
                "courier get -O - https://example.org/data.json | jq .",
                "courier get --proxy socks5h://127.0.0.1:1080 --cacert ca.pem https://intranet/x",
                "courier get -N --checksums SHA256SUMS -i urls.txt -m 600 --speed-limit 1k",
                "courier get -q --json -i urls.txt | jq -r .file",
            ]),
        "post": CommandHelp(
            usage: "courier post [OPTIONS] URL",
            description: """
                Sends a form or a body to URL and writes the response body to standard output (or -o
                FILE). -F fields make a form: urlencoded, or multipart/form-data once a file is among
                them; files are streamed from disk. --data and --data-binary send a body as it is. The
                upload's progress bar goes to standard error, and a status line after it.
                """,
            specs: PostOptions.allSpecs,
            notes: """
                Exit status: 0 for a response below 400; 1 for a failure or a status of 400 or above;
                2 for a usage error.
                """,
            examples: [
                "courier post https://example.org/form -F name=ada -F lang=swift",
                "courier post https://example.org/upload -F 'photo=@cat.jpg;type=image/jpeg'",
                "courier post https://example.org/api -H 'Content-Type: application/json' --data '{\"a\":1}'",
                "courier post -X PUT https://example.org/files/big.bin --data-binary @big.bin",
            ]),
        "s3": CommandHelp(
            usage: "courier s3 ls|cp|rm|mb|rb|presign [OPTIONS] [s3://BUCKET[/KEY]] ...",
            description: """
                Works with S3, or a service that speaks its protocol (MinIO, Ceph, R2, a local
                server), as the aws s3 command does. ls lists the buckets, or a bucket's keys one level
                at a time (PRE name/ for each folder; all of them with --recursive), page after page.
                cp FILE s3://BUCKET/KEY uploads (a KEY ending in / gets the file's name); cp
                s3://BUCKET/KEY FILE downloads to FILE, into a folder under the key's last segment, or
                to standard output for -. rm deletes an object, mb makes a bucket, rb removes an empty
                one, and presign prints a URL that gets the object without credentials.

                A file above --multipart-threshold is uploaded in parts, several at once; a failed or
                interrupted multipart upload is aborted on the service. A download goes to FILE.part
                and is renamed to FILE once whole; a failed one keeps FILE.part, which -c resumes.
                """,
            specs: S3CommandOptions.allSpecs,
            notes: """
                Requests are signed with AWS Signature Version 4, with the credentials in
                AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (none: unsigned). The
                region is --region, else AWS_REGION, AWS_DEFAULT_REGION, us-east-1; the service is
                --endpoint-url, else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS. A failure
                prints S3's error code and message on standard error. ls prints times in local time.
                --timeout is 60 s unless given, as the AWS CLI's: S3 can be silent that long while it
                puts a large multipart upload together.

                Exit status: 0 when done; 1 when a request failed; 2 for a usage error; 130 when
                interrupted.
                """,
            examples: [
                "courier s3 ls",
                "courier s3 ls s3://photos/2024/",
                "courier s3 cp --endpoint-url http://127.0.0.1:9000 cat.jpg s3://photos/2024/",
                "courier s3 cp -c s3://archive/big.tar .",
                "courier s3 cp s3://logs/today.json - | jq .",
                "courier s3 presign s3://reports/q1.pdf --expires-in 600",
            ]),
        "page": CommandHelp(
            usage: "courier page [OPTIONS] URL",
            description: """
                Saves the page at URL with everything it needs to display offline: its stylesheets
                (and their images and imports), scripts, images, frames, audio and video. By default
                the page goes to DIR/NAME.html and its resources to DIR/NAME_files/, and the page
                refers to them by relative paths (as wget -p -k does); --single-file inlines every
                resource as a data: URI into one HTML file instead (as monolith does). NAME is the
                URL's last path component when it ends in .html or .htm, else index. Links (a href)
                are never followed: they, and any resource that was not saved, become absolute web
                URLs. A resource that cannot be fetched keeps its web URL and is listed on standard
                error, unless --fail-on-resource-errors.

                Nothing is written under the destination's names until the whole page is done: a
                failure or Ctrl-C leaves none of it. A copy saved before under the same names is
                replaced.
                """,
            specs: PageOptions.allSpecs,
            notes: """
                Resources are sent -u, -H and cookies only when they are on the page's own scheme,
                host and port. The progress bar counts the page, then its resources.

                Exit status: 0 when the page was saved; 1 when it failed (a status of 400 or above,
                or with --fail-on-resource-errors a resource that failed); 2 for a usage error; 130
                when interrupted.
                """,
            examples: [
                "courier page https://example.org/article.html",
                "courier page -o saved --max-depth 2 https://example.org/",
                "courier page --single-file -o article.html https://example.org/news/42",
                "courier page --fail-on-resource-errors -j 8 https://intranet/report.html",
            ]),
        "demo": CommandHelp(
            usage: "courier demo [OPTIONS]",
            description: """
                Starts Courier's test server in this process on 127.0.0.1 (an ephemeral port) and
                downloads a mixed batch from it through one queue, the way get does: small and large
                files, a redirect, a gzip-encoded response, a download that stalls and is resumed, and
                a form upload. Then it checks every saved file against what the server sent.
                """,
            specs: DemoOptions.allSpecs,
            notes: "Exit status: 0 when every response was verified; 1 otherwise.",
            examples: ["courier demo", "courier demo -o demo-files -j 2"]),
        "help": CommandHelp(
            usage: "courier help [COMMAND]", description: "Shows the help of COMMAND, or the overview.", specs: [],
            notes: "", examples: ["courier help get"]),
        "completion": CommandHelp(
            usage: "courier completion bash|zsh",
            description: """
                Prints a completion script for bash or zsh, made from the same option tables as the
                help, so it offers exactly the flags courier takes.
                """,
            specs: [], notes: "",
            examples: [
                "courier completion bash > ~/.local/share/bash-completion/completions/courier",
                "courier completion zsh > ~/.zsh/completions/_courier",
            ]),
        "man": CommandHelp(
            usage: "courier man",
            description: "Prints the manual page, courier.1, in roff, made from the same text as the help.",
            specs: [], notes: "",
            examples: [
                "mkdir -p ~/.local/share/man/man1 && courier man > ~/.local/share/man/man1/courier.1",
                "courier man | man -l -",
            ]),
    ]

    /// The help for `command`, or the overview.
    static func text(for command: String?) -> String {
        guard let command, let help = commands[command] else { return overview }
        var lines = ["usage: " + help.usage, "", help.description]
        if !help.specs.isEmpty {
            lines += ["", "Options:"]
            let column = 2 + min(30, help.specs.map(\.label.count).max() ?? 0) + 2
            let indent = String(repeating: " ", count: column)
            for spec in help.specs {
                let summary = spec.summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let label = "  " + spec.label
                // A label too long for the column puts its description on the next line.
                let first =
                    label.count <= column - 2
                    ? [label + String(repeating: " ", count: column - label.count) + summary[0]]
                    : [label, indent + summary[0]]
                lines += first + summary.dropFirst().map { indent + $0 }
            }
        }
        if !help.notes.isEmpty { lines += ["", help.notes] }
        if !help.examples.isEmpty { lines += ["", "Examples:"] + help.examples.map { "  " + $0 } }
        return lines.joined(separator: "\n")
    }
}
