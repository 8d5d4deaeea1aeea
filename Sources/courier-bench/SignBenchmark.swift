import Courier
import Foundation

/// `courier-bench sign N [--sign-only|--presign-only]`: what AWS Signature Version 4 costs per
/// request (issue 34: a signed GET should cost at most 1.15× an unsigned one). `sign` for a
/// typical GET and `presign` for the same object, N times each, on one thread, no network;
/// prints `ok signs=N sign_ns=S presign_ns=P` (CPU nanoseconds per call; 0 for a part not run). One
/// part alone is for callgrind: `Benchmarks/signing.sh` differences two counts of each.
///
/// The request is S3Request's shape: a local service's host with its port, a 40-character key,
/// three headers of its own and the empty payload's hash. The dates stay within one day, so the
/// day's signing key is derived once, as it is for a signer in use; each call still formats its
/// own moment, as each request is signed for its own.
struct SignBenchmark {
    enum Part {
        case both, sign, presign
    }

    /// Runs the command line after `sign`; the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let parts: [String: Part] = ["--sign-only": .sign, "--presign-only": .presign]
        let flags = arguments.filter { $0.hasPrefix("--") }
        let positional = arguments.filter { !$0.hasPrefix("--") }
        guard positional.count == 1, let count = Int(positional[0]), count > 0, flags.count < 2,
            flags.allSatisfy({ parts[$0] != nil })
        else {
            FileHandle.standardError.write(
                Data("sign needs N [--sign-only|--presign-only]\n\(BenchCommand.usage)\n".utf8))
            return 2
        }
        print(SignBenchmark(count: count, part: flags.first.flatMap { parts[$0] } ?? .both).run())
        return 0
    }

    let count: Int
    let part: Part

    private let signer = AWSSignatureV4(
        accessKey: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1")
    // 40 characters after the bucket: "photos/2026/12/05/holiday-IMG_00042.jpeg".
    private let url = URL(string: "http://127.0.0.1:9000/bucket/photos/2026/12/05/holiday-IMG_00042.jpeg")!
    private let headers: HTTPHeaders = [
        "Range": "bytes=0-1023", "If-None-Match": "\"9b2cf535f27731c974343645a3985328\"",
        "x-amz-expected-bucket-owner": "111122223333",
    ]
    /// 2026-12-05 08:00:00 UTC: the calls add up to 16 hours to it and so stay on its day.
    private let start = Date(timeIntervalSince1970: 1_796_457_600)

    /// The result line.
    func run() -> String {
        // The first call of each derives the day's key and warms libcrypto; it is not timed.
        var total = signer.sign(method: "GET", url: url, headers: headers, payloadHash: emptyHash, date: start).count
        total += signer.presign(method: "GET", url: url, date: start, expiresIn: 3600).absoluteString.utf8.count
        var signNanoseconds = 0.0
        var presignNanoseconds = 0.0
        if part != .presign {
            let began = Self.now()
            for index in 0..<count {
                let date = start.addingTimeInterval(Double(index % 57_600))
                total +=
                    signer.sign(method: "GET", url: url, headers: headers, payloadHash: emptyHash, date: date).count
            }
            signNanoseconds = Double(Self.now() - began) / Double(count)
        }
        if part != .sign {
            let began = Self.now()
            for index in 0..<count {
                let date = start.addingTimeInterval(Double(index % 57_600))
                total += signer.presign(method: "GET", url: url, date: date, expiresIn: 3600).absoluteString.utf8.count
            }
            presignNanoseconds = Double(Self.now() - began) / Double(count)
        }
        // Used, so no call can be dropped as dead: every signature has the same length.
        precondition(total > 0)
        return
            "ok signs=\(count) sign_ns=\(Int(signNanoseconds.rounded())) presign_ns=\(Int(presignNanoseconds.rounded()))"
    }

    private var emptyHash: String { AWSSignatureV4.emptyPayloadHash }

    /// This thread's CPU time: on a machine shared with other work, what signing costs, not how
    /// long the thread waited for a core.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
