import Foundation

/// Turns `courier`'s arguments into a `Command`, by hand: the grammar is small, and the
/// package takes no outside dependencies.
///
/// Flags may come before, between or after the URLs; `-o DIR`, `-oDIR`, `--output DIR` and
/// `--output=DIR` are the same (likewise `-j`); `--` ends the flags.
enum CommandLineParser {
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { throw UsageError(message: nil) }
        let rest = arguments.dropFirst()
        switch first {
        case "-h", "--help", "help":
            return .help
        case "--version":
            return .version
        case "get":
            guard let parsed = try parseFetchArguments(rest) else { return .help }
            guard !parsed.operands.isEmpty else { throw UsageError(message: "get needs at least one URL") }
            var urls: [URL] = []
            for operand in parsed.operands { urls.append(try parseURL(operand)) }
            return .get(urls: urls, options: parsed.options)
        case "demo":
            guard let parsed = try parseFetchArguments(rest) else { return .help }
            if let extra = parsed.operands.first {
                throw UsageError(message: "demo takes no URLs (got \"\(extra)\")")
            }
            return .demo(options: parsed.options)
        case _ where first.hasPrefix("-"):
            throw UsageError(message: "unknown option \"\(first)\"")
        default:
            throw UsageError(message: "unknown command \"\(first)\"")
        }
    }

    /// The operands and flags after a command; nil when they ask for help.
    private static func parseFetchArguments(
        _ arguments: ArraySlice<String>
    ) throws(UsageError) -> (operands: [String], options: FetchOptions)? {
        var operands: [String] = []
        var options = FetchOptions()
        var remaining = arguments[...]
        var flagsEnded = false
        while let argument = remaining.popFirst() {
            if flagsEnded || !argument.hasPrefix("-") || argument == "-" {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                flagsEnded = true
                continue
            }
            let (flag, attachedValue) = split(argument)
            switch flag {
            case "-h" where attachedValue == nil, "--help" where attachedValue == nil:
                return nil
            case "-o", "--output":
                let value = try value(of: flag, attachedValue, from: &remaining)
                guard !value.isEmpty else { throw UsageError(message: "\(flag) needs a directory") }
                options.outputDirectory = value
            case "-j", "--jobs":
                let value = try value(of: flag, attachedValue, from: &remaining)
                guard let count = Int(value), count >= 1 else {
                    throw UsageError(message: "\(flag) needs a whole number of at least 1 (got \"\(value)\")")
                }
                options.maxConcurrentRequests = count
            case "--no-progress" where attachedValue == nil:
                options.showsProgress = false
            default:
                throw UsageError(message: "unknown option \"\(argument)\"")
            }
        }
        return (operands, options)
    }

    /// Splits `--name=value` and `-xVALUE` into the flag and its attached value.
    private static func split(_ argument: String) -> (flag: String, value: String?) {
        if argument.hasPrefix("--") {
            guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        guard argument.count > 2 else { return (argument, nil) }
        let flagEnd = argument.index(argument.startIndex, offsetBy: 2)
        return (String(argument[..<flagEnd]), String(argument[flagEnd...]))
    }

    /// The flag's attached value, or else the next argument, which the flag then consumes.
    private static func value(
        of flag: String, _ attachedValue: String?, from remaining: inout ArraySlice<String>
    ) throws(UsageError) -> String {
        if let attachedValue { return attachedValue }
        guard let next = remaining.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
        return next
    }

    /// An absolute http or https URL with a host: what Courier can fetch. Anything else is
    /// refused here, before a single request starts, rather than failing one request later.
    static func parseURL(_ text: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { throw UsageError(message: "not an http or https URL: \"\(text)\"") }
        return url
    }
}
