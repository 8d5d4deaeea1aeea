import Courier
import Foundation

/// Turns `courier`'s arguments into a `Command`: the first argument names the command, and the
/// command's `OptionSpec`s say how to read the rest (`ArgumentScanner`).
enum CommandLineParser {
    /// The commands, in the order the help lists them.
    static let commands = ["get", "post", "s3", "page", "demo", "help", "completion", "man"]

    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { throw UsageError("no command given") }
        let rest = arguments.dropFirst()
        switch first {
        case "-h", "--help":
            return .help(command: nil)
        case "--version":
            return .version
        case "help":
            guard let topic = rest.first else { return .help(command: nil) }
            guard HelpText.commands[topic] != nil else { throw UsageError("no help for \"\(topic)\": no such command") }
            return .help(command: topic)
        case "get":
            return try parseGet(rest)
        case "post":
            return try parsePost(rest)
        case "s3":
            return try parseS3(rest)
        case "page":
            return try parsePage(rest)
        case "demo":
            return try parseDemo(rest)
        case "completion":
            guard rest.count == 1, let shell = rest.first, CompletionScript.shells.contains(shell) else {
                if rest.first == "-h" || rest.first == "--help" { return .help(command: "completion") }
                throw UsageError("completion needs one shell: bash or zsh", command: "completion")
            }
            return .completion(shell: shell)
        case "man":
            if rest.first == "-h" || rest.first == "--help" { return .help(command: "man") }
            if let extra = rest.first { throw UsageError("man takes nothing more (got \"\(extra)\")", command: "man") }
            return .manual
        case _ where first.hasPrefix("-"):
            throw UsageError("unknown option \"\(first)\" (a command comes first: get, post, s3, page, demo)")
        default:
            throw UsageError(
                "unknown command \"\(first)\" (the commands are get, post, s3, page, demo, help, completion and man)")
        }
    }

    private static func parseGet(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (options, operands) = try parseOptions(arguments, as: GetOptions.self, command: "get") else {
            return .help(command: "get")
        }
        let parsing = ValueParsing(command: "get")
        guard !operands.isEmpty || options.inputFile != nil else {
            throw UsageError("get needs at least one URL (or -i FILE)", command: "get")
        }
        // The URLs of `-i` are read, and checked, when the command runs.
        for operand in operands { _ = try parsing.url(operand) }
        if options.outputFile != nil, options.inputFile != nil || operands.count != 1 {
            throw UsageError("-O names one file: give exactly one URL (or save into a folder with -o)", command: "get")
        }
        if options.outputFile != nil, options.outputDirectory != nil {
            throw UsageError("give -o DIR or -O FILE, not both", command: "get")
        }
        if options.outputFile == "-", options.usesContentDisposition || options.resumes {
            throw UsageError(
                "-O - writes to standard output: --content-disposition and -c do not apply", command: "get")
        }
        try options.checkFeatures(hasOneURL: options.inputFile == nil && operands.count == 1)
        return .get(operands: operands, options: options)
    }

    private static func parsePost(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (options, operands) = try parseOptions(arguments, as: PostOptions.self, command: "post") else {
            return .help(command: "post")
        }
        guard let operand = operands.first else { throw UsageError("post needs a URL", command: "post") }
        guard operands.count == 1 else {
            throw UsageError("post sends to one URL (got \(operands.count))", command: "post")
        }
        try options.check(command: "post")
        return .post(url: try ValueParsing(command: "post").url(operand), options: options)
    }

    private static func parseS3(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let subcommand = arguments.first, !subcommand.hasPrefix("-") || subcommand == "-" else {
            if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
                return .help(command: "s3")
            }
            throw UsageError(
                "s3 needs a command first: \(S3Action.subcommands.joined(separator: ", "))", command: "s3")
        }
        let flagsAndOperands = arguments.dropFirst()
        guard let (options, operands) = try parseOptions(flagsAndOperands, as: S3CommandOptions.self, command: "s3")
        else {
            return .help(command: "s3")
        }
        return .s3(action: try S3Action.parse(subcommand, operands), options: options)
    }

    private static func parsePage(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (options, operands) = try parseOptions(arguments, as: PageOptions.self, command: "page") else {
            return .help(command: "page")
        }
        guard let operand = operands.first else { throw UsageError("page needs a URL", command: "page") }
        guard operands.count == 1 else {
            throw UsageError("page saves one URL (got \(operands.count))", command: "page")
        }
        return .page(url: try ValueParsing(command: "page").url(operand), options: options)
    }

    private static func parseDemo(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
        guard let (options, operands) = try parseOptions(arguments, as: DemoOptions.self, command: "demo") else {
            return .help(command: "demo")
        }
        if let extra = operands.first {
            throw UsageError("demo takes no URLs (got \"\(CredentialMask.url(extra))\")", command: "demo")
        }
        return .demo(options: options)
    }

    /// A command's flags read into its options, and its operands; nil when they ask for help.
    private static func parseOptions<Options: CommandOptions>(
        _ arguments: ArraySlice<String>, as _: Options.Type, command: String
    ) throws(UsageError) -> (Options, [String])? {
        let scanned = try ArgumentScanner(command: command, specs: Options.allSpecs).scan(arguments)
        if scanned.wantsHelp { return nil }
        let parsing = ValueParsing(command: command)
        var options = Options()
        for (spec, value) in scanned.flags where spec != .help {
            guard try options.take(spec, value, parsing: parsing) else {
                preconditionFailure("--\(spec.long) is in \(command)'s specs but not taken")
            }
        }
        return (options, scanned.operands)
    }
}
