import Foundation

/// What `courier s3` was asked to do, besides the subcommand and its operands.
struct S3CommandOptions: Equatable {
    /// aws's default, and S3MultipartUpload's part size.
    static let defaultMultipartThreshold: Int64 = 8 * 1_048_576
    /// Seconds without progress before a request fails, unless `--timeout` says: the AWS CLI's
    /// read timeout. S3 may be silent that long while it puts a large multipart upload together
    /// (moto takes over 10 s, Courier's own default, for 128 parts of 8 MiB).
    static let defaultTimeoutSeconds = 60.0

    /// The request flags `get` and `post` take, but `-u` and `--max-redirs`: S3 requests are
    /// signed with the environment's AWS credentials, never sent a user name and password, and
    /// S3Request follows no redirect (S3's are errors it answers itself).
    var request = RequestOptions()
    /// `--endpoint-url URL` (nil: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, then AWS).
    var endpoint: URL?
    /// `--region R` (nil: `AWS_REGION`, `AWS_DEFAULT_REGION`, then us-east-1).
    var region: String?
    /// `--multipart-threshold SIZE`: a larger file is uploaded in parts.
    var multipartThreshold = S3CommandOptions.defaultMultipartThreshold
    /// `--page-size N`: keys asked for per ListObjectsV2 page (nil: the service's 1,000).
    var pageSize: Int?
    /// `--recursive`: `ls` lists every key under the prefix, no `PRE` lines.
    var isRecursive = false
    /// `--expires-in S`: a presigned URL's lifetime.
    var expiresIn: Double = 3600
    /// `-c, --continue`: resume `FILE.part` left by an earlier download, and keep it on failure.
    var resumes = false

    static let specs: [OptionSpec] = [
        OptionSpec(
            nil, "endpoint-url", value: "URL",
            "send to this S3-compatible service (MinIO, Ceph, R2, a\n"
                + "local server), not AWS; else AWS_ENDPOINT_URL_S3, then\nAWS_ENDPOINT_URL"),
        OptionSpec(nil, "region", value: "R", "sign for region R; else AWS_REGION, AWS_DEFAULT_REGION,\nus-east-1"),
        OptionSpec(
            nil, "multipart-threshold", value: "SIZE",
            "cp: upload a file larger than SIZE in parts (8Mi; 5Mi at\nleast; 1Gi = 1 GiB)"),
        OptionSpec("c", "continue", "cp: resume FILE.part left by an earlier download, keep it\nwhen one fails"),
        OptionSpec(nil, "recursive", "ls: every key under the prefix, not one level"),
        OptionSpec(nil, "page-size", value: "N", "ls: ask for N keys a page (1 to 1000; 1000)"),
        OptionSpec(nil, "expires-in", value: "S", "presign: the URL works for S seconds (3600; at most 604800)"),
    ]

    static let allSpecs = specs + RequestOptions.specs.filter { !["user", "max-redirs"].contains($0.long) } + [.help]

    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        if try request.take(spec, value, parsing: parsing) { return true }
        let flag = "--" + spec.long
        switch (spec.long, value) {
        case ("endpoint-url", let value?): endpoint = try parsing.url(value)
        case ("region", let value?):
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw UsageError("\(flag) needs a region name like eu-west-1 (got \"\(value)\")", command: "s3")
            }
            region = value
        case ("multipart-threshold", let value?):
            multipartThreshold = try parsing.byteSize(value, for: flag, atLeast: 5 * 1_048_576)
        case ("continue", _): resumes = true
        case ("recursive", _): isRecursive = true
        case ("page-size", let value?): pageSize = try parsing.integer(value, for: flag, in: 1...1000)
        case ("expires-in", let value?):
            expiresIn = Double(try parsing.integer(value, for: flag, in: 1...604_800))
        default: return false
        }
        return true
    }
}

extension ValueParsing {
    /// A size in bytes: "8388608", or with a binary unit as aws takes them: "8M", "8MB", "8Mi",
    /// "8MiB" (all 8 MiB), "512K", "1G".
    func byteSize(_ value: String, for flag: String, atLeast minimum: Int64) throws(UsageError) -> Int64 {
        var digits = Substring(value.uppercased())
        for suffix in ["IB", "B", "I"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var multiplier: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let number = Int64(digits), number >= 0, number <= Int64.max / multiplier,
            number * multiplier >= minimum
        else {
            throw UsageError(
                "\(flag) needs a size of at least \(minimum) bytes, like 8Mi or 64MB (got \"\(value)\")",
                command: command)
        }
        return number * multiplier
    }
}
