import Courier

/// Default options for `courier get`: first the config file's, then `COURIER_OPTIONS`'s, then the
/// command line's, so the command line wins for a flag given once and adds to a repeatable one.
/// Both hold options as they would be typed, quotes and all; the file may spread them over lines
/// and has `#` comments. They hold options only: a URL there would be fetched by every run.
enum DefaultOptions {
    static let environmentVariable = "COURIER_OPTIONS"

    static let environmentHelp =
        "Default options for courier get, as they would be typed (quotes work): "
        + "COURIER_OPTIONS='--retry 3 --timeout 30'. They come after the config file's and before "
        + "the command line's; -v shows them."

    static let fileHelp =
        "Default options for courier get, as they would be typed, over any number of lines, with # "
        + "comments ($XDG_CONFIG_HOME/courier/config when XDG_CONFIG_HOME is set). They come first; "
        + "-v shows them."

    /// The arguments of `get` with the defaults in front, and a note per source for `-v`.
    static func apply(
        toGet arguments: ArraySlice<String>, environment: [String: String]
    ) throws(UsageError) -> (arguments: [String], notes: [String]) {
        var defaults: [String] = []
        var notes: [String] = []
        var sources: [(name: String, text: String)] = []
        if let path = configPath(environment), let data = FileManager.default.contents(atPath: path) {
            sources.append((path, String(decoding: data, as: UTF8.self)))
        }
        if let text = environment[environmentVariable] { sources.append((environmentVariable, text)) }
        for (name, text) in sources {
            let words = try words(in: text, source: name)
            guard !words.isEmpty else { continue }
            let scanned: ArgumentScanner.Result
            do {
                scanned = try ArgumentScanner(command: "get", specs: GetOptions.allSpecs).scan(words[...])
            } catch {
                throw UsageError("\(name): \(error.message)", command: "get")
            }
            if let operand = scanned.operands.first {
                throw UsageError(
                    "\(name): \"\(CredentialMask.url(operand))\" is not an option (defaults hold options only)",
                    command: "get")
            }
            if scanned.wantsHelp { throw UsageError("\(name): -h is not a default", command: "get") }
            defaults += words
            notes.append("defaults from \(name): " + masked(words).joined(separator: " "))
        }
        return (defaults + arguments, notes)
    }

    /// `$XDG_CONFIG_HOME/courier/config`, else `~/.config/courier/config`.
    static func configPath(_ environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") { return base + "/courier/config" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/courier/config"
    }

    /// Splits `text` as a shell splits a command line, without expanding anything: blanks and
    /// line breaks separate words, '...' and "..." group, a backslash takes the next character as
    /// it is, and `#` at the start of a word comments out the rest of the line.
    static func words(in text: String, source: String) throws(UsageError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\", open == "\"", let next = iterator.next() {
                    current.append(next)
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "#" where !inWord:
                while let skipped = iterator.next(), skipped != "\n" {}
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                if let next = iterator.next() { current.append(next) }
                inWord = true
            default:
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw UsageError("\(source): a quote is not closed", command: "get") }
        if inWord { words.append(current) }
        return words
    }

    /// The words as `-v` shows them: passwords of `-u` and proxies, and credential headers, masked.
    private static func masked(_ words: [String]) -> [String] {
        var result: [String] = []
        var previous = ""
        for word in words {
            var shown = word
            if ["-u", "--user"].contains(previous), let colon = word.firstIndex(of: ":") {
                shown = word[..<colon] + ":" + CredentialMask.mask
            } else if previous == "--proxy" {
                shown = CredentialMask.url(word)
            } else if ["-H", "--header"].contains(previous), let colon = word.firstIndex(of: ":"),
                ["authorization", "proxy-authorization", "cookie"].contains(word[..<colon].lowercased())
            {
                shown = word[..<colon] + ": " + CredentialMask.mask
            }
            result.append(shown.contains(" ") ? "'\(shown)'" : shown)
            previous = word
        }
        return result
    }
}
