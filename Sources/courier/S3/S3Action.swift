import Foundation

/// What `courier s3 SUBCOMMAND OPERANDS` asks for, once its operands are read.
enum S3Action: Equatable {
    /// `ls`: the buckets (nil), or a bucket's keys under a prefix.
    case list(S3Location?)
    /// `cp FILE s3://BUCKET/KEY`.
    case upload(file: String, to: S3Location)
    /// `cp s3://BUCKET/KEY FILE|DIR|-`.
    case download(S3Location, to: String)
    /// `rm s3://BUCKET/KEY`.
    case remove(S3Location)
    /// `mb s3://BUCKET`.
    case makeBucket(String)
    /// `rb s3://BUCKET`.
    case removeBucket(String)
    /// `presign s3://BUCKET/KEY`.
    case presign(S3Location)

    /// The subcommands, in the order the help lists them.
    static let subcommands = ["ls", "cp", "rm", "mb", "rb", "presign"]

    /// The action `subcommand` names with `operands`, or a usage error that says what is missing.
    static func parse(_ subcommand: String, _ operands: [String]) throws(UsageError) -> S3Action {
        func location(_ text: String, needsKey: Bool) throws(UsageError) -> S3Location {
            guard let location = S3Location(text), !location.bucket.isEmpty else {
                throw UsageError(
                    "\(subcommand) needs s3://BUCKET\(needsKey ? "/KEY" : "") (got \"\(text)\")", command: "s3")
            }
            if needsKey, location.key.isEmpty {
                throw UsageError("\(subcommand) needs a key: s3://\(location.bucket)/KEY", command: "s3")
            }
            return location
        }
        func count(_ expected: ClosedRange<Int>, _ what: String) throws(UsageError) {
            guard expected.contains(operands.count) else {
                throw UsageError("\(subcommand) takes \(what) (got \(operands.count) operands)", command: "s3")
            }
        }
        switch subcommand {
        case "ls":
            try count(0...1, "at most one s3://BUCKET[/PREFIX]")
            return .list(try operands.first.map { text throws(UsageError) in try location(text, needsKey: false) })
        case "cp":
            try count(2...2, "a source and a destination")
            switch (S3Location(operands[0]), S3Location(operands[1])) {
            case (nil, .some):
                let destination = try location(operands[1], needsKey: false)
                guard operands[0] != "-" else {
                    throw UsageError("cp uploads a file, not standard input", command: "s3")
                }
                // As aws: a destination that ends in "/" (or is the bucket) is a folder, and the
                // object is named after the file.
                guard destination.key.isEmpty || destination.key.hasSuffix("/") else {
                    return .upload(file: operands[0], to: destination)
                }
                let name = (operands[0] as NSString).lastPathComponent
                return .upload(
                    file: operands[0], to: S3Location(bucket: destination.bucket, key: destination.key + name))
            case (.some, nil):
                let source = try location(operands[0], needsKey: true)
                guard !source.lastSegment.isEmpty else {
                    throw UsageError("cp needs a key with a name: \(source)", command: "s3")
                }
                guard !operands[1].isEmpty else { throw UsageError("cp needs a destination file", command: "s3") }
                return .download(source, to: operands[1])
            case (.some, .some):
                throw UsageError("cp copies between a file and s3://, not between two s3:// locations", command: "s3")
            case (nil, nil):
                throw UsageError("cp needs an s3://BUCKET/KEY on one side", command: "s3")
            }
        case "rm":
            try count(1...1, "one s3://BUCKET/KEY")
            return .remove(try location(operands[0], needsKey: true))
        case "mb", "rb":
            try count(1...1, "one s3://BUCKET")
            let bucket = try location(operands[0], needsKey: false)
            guard bucket.key.isEmpty else {
                throw UsageError("\(subcommand) takes a bucket, not a key (got \"\(operands[0])\")", command: "s3")
            }
            return subcommand == "mb" ? .makeBucket(bucket.bucket) : .removeBucket(bucket.bucket)
        case "presign":
            try count(1...1, "one s3://BUCKET/KEY")
            return .presign(try location(operands[0], needsKey: true))
        default:
            throw UsageError(
                "unknown s3 command \"\(subcommand)\" (the s3 commands are \(subcommands.joined(separator: ", ")))",
                command: "s3")
        }
    }
}
