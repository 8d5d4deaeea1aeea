import CourierTestSupport
import Foundation

/// botocore (PyPI), AWS's own Python signer, run through `botocore_sign.py` beside this file: the
/// second implementation the S3 signers are checked against.
///
/// `scripts/setup.sh --tests` installs it, pinned, into the interop tests' virtual environment;
/// a `python3` on `PATH` that can import it does too. When neither can, `sign` throws, so the
/// comparison fails and says what to install: it is never skipped.
enum BotocoreSigner {
    /// One request for the script (its fields are documented there).
    struct Request: Encodable {
        var kind: String
        var method: String
        var url: String
        var params: [[String]] = []
        var headers: [[String]] = []
        var bodyPath: String?
        var unsigned = false
        var accessKey: String
        var secretKey: String
        var token: String?
        var region = "us-east-1"
        var timestamp = ""
        var expires = 0
        var authPath: String?
        var date: String?

        enum CodingKeys: String, CodingKey {
            case kind, method, url, params, headers, unsigned, token, region, timestamp, expires, date
            case bodyPath = "body_path"
            case accessKey = "access_key"
            case secretKey = "secret_key"
            case authPath = "auth_path"
        }
    }

    /// botocore's answer to one request.
    struct Answer: Decodable {
        var authorization: String?
        var amazonDate: String?
        var contentSHA256: String?
        var url: String?

        enum CodingKeys: String, CodingKey {
            case authorization, url
            case amazonDate = "x-amz-date"
            case contentSHA256 = "x-amz-content-sha256"
        }
    }

    /// botocore could not be run.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The script, beside this source file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "botocore_sign.py")

    /// The Pythons tried, in order: the interop virtual environment's, then `python3` on `PATH`.
    static var pythons: [URL] {
        let environment = ProcessInfo.processInfo.environment
        var venv: URL
        if let path = environment["COURIER_INTEROP_VENV"], !path.isEmpty {
            venv = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            let cache =
                environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
            venv = URL(fileURLWithPath: cache, isDirectory: true).appendingPathComponent("courier/interop-venv")
        }
        let onPath = (environment["PATH"] ?? "").split(separator: ":").map {
            URL(fileURLWithPath: String($0)).appendingPathComponent("python3")
        }
        return ([venv.appendingPathComponent("bin/python")] + onPath).filter {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    /// botocore's answers to `requests`, in order, from one run of the script.
    /// - Throws: ``Unavailable`` when no Python can import botocore or the script fails.
    static func sign(_ requests: [Request], in directory: URL) throws -> [Answer] {
        let input = directory.appendingPathComponent("botocore-requests.json")
        let output = directory.appendingPathComponent("botocore-answers.json")
        try JSONEncoder().encode(requests).write(to: input)
        var tried: [String] = []
        for python in pythons {
            try? FileManager.default.removeItem(at: output)
            let run = try Tool.run(python, [script.path, input.path, output.path], errorsToOutput: true, timeout: 120)
            // 3: botocore cannot be imported by this Python; another may have it.
            if run.exited, run.status == 3 {
                tried.append(run.text.trimmingCharacters(in: .whitespacesAndNewlines))
                continue
            }
            guard run.exited, run.status == 0 else {
                throw Unavailable(
                    description: "\(python.path) \(script.lastPathComponent) failed (\(run.status)):\n\(run.text)")
            }
            let answers = try JSONDecoder().decode([Answer].self, from: Data(contentsOf: output))
            guard answers.count == requests.count else {
                throw Unavailable(description: "botocore answered \(answers.count) of \(requests.count) requests")
            }
            return answers
        }
        throw Unavailable(
            description: "botocore is needed to check the S3 signers and no Python here can import it. "
                + "Run scripts/setup.sh --tests (it installs botocore into the interop virtual environment) "
                + "or pip install botocore. Tried: "
                + (tried.isEmpty ? "no python3 found" : tried.joined(separator: "; ")))
    }
}
