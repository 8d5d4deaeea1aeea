/// Splits a command's arguments into flags (each with its value) and operands, by the command's
/// `OptionSpec`s, the way getopt_long does: flags may come before, between or after the
/// operands; `-o DIR`, `-oDIR`, `--output DIR` and `--output=DIR` are one flag; switches may be
/// bundled (`-qk`); `--` ends the flags, and a lone `-` is an operand (standard input or output).
///
/// Hand-written on purpose: the grammar is small, and the package takes no outside dependencies.
struct ArgumentScanner {
    /// What a command line held.
    struct Result {
        /// The flags in the order given, each with its value (nil for a switch).
        var flags: [(spec: OptionSpec, value: String?)] = []
        /// The arguments that are not flags, in order.
        var operands: [String] = []
        /// True when `-h` or `--help` was among the flags.
        var wantsHelp = false
    }

    let command: String
    let specs: [OptionSpec]

    func scan(_ arguments: ArraySlice<String>) throws(UsageError) -> Result {
        var result = Result()
        var remaining = arguments
        while let argument = remaining.popFirst() {
            if argument == "--" {
                result.operands.append(contentsOf: remaining)
                break
            }
            if argument.hasPrefix("--") {
                try scanLong(argument, remaining: &remaining, into: &result)
            } else if argument.hasPrefix("-"), argument != "-" {
                try scanShort(argument, remaining: &remaining, into: &result)
            } else {
                result.operands.append(argument)
            }
        }
        return result
    }

    private func scanLong(
        _ argument: String, remaining: inout ArraySlice<String>, into result: inout Result
    ) throws(UsageError) {
        let body = argument.dropFirst(2)
        let equals = body.firstIndex(of: "=")
        let name = String(equals.map { body[..<$0] } ?? body)
        let attached = equals.map { String(body[body.index(after: $0)...]) }
        guard let spec = specs.first(where: { $0.long == name }) else {
            throw UsageError("unknown option \"--\(name)\"", command: command)
        }
        if !spec.takesValue, attached != nil { throw UsageError("--\(name) takes no value", command: command) }
        var value = attached
        if spec.takesValue, value == nil { value = try nextValue(for: "--\(name)", spec, from: &remaining) }
        record(spec, value, into: &result)
    }

    private func scanShort(
        _ argument: String, remaining: inout ArraySlice<String>, into result: inout Result
    ) throws(UsageError) {
        var letters = argument.dropFirst()
        while let letter = letters.popFirst() {
            guard let spec = specs.first(where: { $0.short == letter }) else {
                throw UsageError("unknown option \"-\(letter)\"", command: command)
            }
            guard spec.takesValue else {
                record(spec, nil, into: &result)
                continue
            }
            // The rest of the argument is the value (`-oDIR`, `-qj4`), else the next argument.
            let value = letters.isEmpty ? try nextValue(for: "-\(letter)", spec, from: &remaining) : String(letters)
            record(spec, value, into: &result)
            return
        }
    }

    private func nextValue(
        for flag: String, _ spec: OptionSpec, from remaining: inout ArraySlice<String>
    ) throws(UsageError) -> String {
        guard let next = remaining.popFirst() else {
            throw UsageError("\(flag) needs a value (\(spec.valueName ?? "one"))", command: command)
        }
        return next
    }

    private func record(_ spec: OptionSpec, _ value: String?, into result: inout Result) {
        if spec == .help { result.wantsHelp = true }
        result.flags.append((spec, value))
    }
}
