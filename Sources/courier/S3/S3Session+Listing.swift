import Courier
import Foundation

extension S3Session {
    /// `ls`: the buckets, or a bucket's keys under a prefix, page after page, each line printed
    /// as its page arrives. As `aws s3 ls`: `2024-01-01 12:00:00 NAME` for a bucket; for a
    /// bucket's contents one level at a time, `PRE name/` for each common prefix and
    /// `DATE TIME SIZE name` for each object (the key's last segment; the whole key with
    /// `--recursive`), in local time.
    func list(_ location: S3Location?) async -> Int32 {
        guard let location else {
            let request = S3ServiceRequest()
            if let error = await send(request) {
                Console.error("ls failed: \(Self.reason(for: error))")
                return 1
            }
            for bucket in request.buckets { Console.out("\(Self.timestamp(bucket.creationDate)) \(bucket.name)") }
            return 0
        }
        let first = S3BucketRequest(bucket: location.bucket)
        if !location.key.isEmpty { first.prefix = location.key }
        if !options.isRecursive { first.delimiter = "/" }
        first.maxResultCount = options.pageSize
        var page: S3BucketRequest? = first
        var configures = true
        while let request = page {
            // A next page is a copy of the first, configured already.
            if let error = await send(request, configures: configures) {
                Console.error("ls failed: s3://\(location.bucket)/\(location.key) \(Self.reason(for: error))")
                return 1
            }
            configures = false
            for prefix in request.commonPrefixes {
                let name = prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast().last ?? ""
                Console.out(String(repeating: " ", count: 27) + "PRE \(name)/")
            }
            for object in request.objects {
                let name = options.isRecursive ? object.key : Self.lastSegment(of: object.key)
                let size = String(object.size)
                let padding = String(repeating: " ", count: max(0, 10 - size.count))
                Console.out("\(Self.timestamp(object.lastModified)) \(padding)\(size) \(name)")
            }
            page = request.nextPageRequest()
        }
        return 0
    }

    /// What follows a key's last "/" (all of it when there is none; "" for a folder marker).
    static func lastSegment(of key: String) -> String {
        key.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }

    /// "2024-01-01 12:00:00" in local time, as `aws s3 ls` prints it; blank when unknown.
    static func timestamp(_ date: Date?) -> String {
        guard let date else { return String(repeating: " ", count: 19) }
        return timestampFormatter.string(from: date)
    }

    private static let timestampFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }()
}
