import Foundation

/// What the S3 service knows: credentials, buckets and their objects, multipart uploads in
/// progress, scripted faults and its clock. Lives in ``ServerState``, so only under the server's lock.
struct S3Store {
    /// A credential the service accepts: the secret for an access key, and the session token
    /// temporary credentials must also send.
    struct Credential {
        let secretAccessKey: String
        let sessionToken: String?
    }

    /// A multipart upload begun and neither completed nor aborted.
    struct Upload {
        let key: String
        let contentType: String?
        let metadata: [String: String]
        /// The parts uploaded so far, by part number: bytes and quoted ETag.
        var parts: [Int: (body: Data, eTag: String)] = [:]
    }

    /// A bucket: where it lives, how it answers a request signed for another region, its objects.
    struct Bucket {
        let region: String
        let wrongRegionStyle: S3WrongRegionStyle
        let creationDate: Date
        var objects: [String: S3StoredObject] = [:]
        var uploads: [String: Upload] = [:]
    }

    /// A scripted fault and which requests it answers.
    struct FaultRule {
        let fault: S3Fault
        var remaining: Int
        let bucket: String
        /// nil: requests on the bucket itself (listing, creating, deleting it).
        let key: String?
        let operation: S3ServerOperation?
        let method: String?
        let partNumber: Int?

        func matches(_ call: S3Call) -> Bool {
            remaining > 0 && call.bucket == bucket && call.key == key
                && (operation == nil || operation == call.operation) && (method == nil || method == call.method)
                && (partNumber == nil || partNumber == call.partNumber)
        }
    }

    var credentials: [String: Credential] = [:]
    var buckets: [String: Bucket] = [:]
    var faults: [FaultRule] = []
    /// Seconds added to the system clock to make the service's clock.
    var clockOffset: TimeInterval = 0
    /// The number in the next request ID and the next upload ID.
    var nextSerial = 1

    /// Whether the service answers at all: once a test has given it credentials or a bucket.
    var isEnabled: Bool { !credentials.isEmpty || !buckets.isEmpty }

    /// The service's clock now.
    var now: Date { Date(timeIntervalSinceNow: clockOffset) }

    /// A fresh serial number, for request and upload IDs.
    mutating func nextID() -> Int {
        defer { nextSerial += 1 }
        return nextSerial
    }

    /// Uses up one answer of the first fault rule that matches `call`.
    mutating func takeFault(for call: S3Call) -> S3Fault? {
        guard let index = faults.firstIndex(where: { $0.matches(call) }) else { return nil }
        faults[index].remaining -= 1
        let fault = faults[index].fault
        if faults[index].remaining == 0 { faults.remove(at: index) }
        return fault
    }
}
