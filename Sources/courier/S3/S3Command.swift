import Courier
import Foundation

/// `courier s3 ls|cp|rm|mb|rb|presign`: S3, or a service that speaks it, from the command line as
/// `aws s3` has it (the same operands and the same lines), with `courier get`'s progress bar and
/// exit statuses: 0 done, 1 failed, 2 a usage error, 130 interrupted.
@MainActor
struct S3Command {
    let action: S3Action
    var options: S3CommandOptions

    /// Runs the action on the main queue and exits the process when it is done.
    func run() -> Never {
        var options = options
        do throws(UsageError) {
            try options.request.prepareRun(command: "s3")
            try Self.applyService(options, environment: ProcessInfo.processInfo.environment)
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        let session = S3Session(options: options)
        InterruptHandler.installFinishing { session.interrupt() }
        let action = action
        Task { @MainActor in
            var status = await session.perform(action)
            if session.isInterrupted { status = InterruptHandler.exitStatus }
            exit(status)
        }
        withExtendedLifetime(session) { dispatchMain() }
    }

    /// Where every request goes and the region it is signed for, set as S3Request's defaults so
    /// that the requests a multipart upload makes get them too: `--endpoint-url`, else
    /// `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL` (as the AWS CLI reads them); `--region`, else
    /// S3Request's own `AWS_REGION` and `AWS_DEFAULT_REGION`. Credentials S3Request reads itself.
    static func applyService(_ options: S3CommandOptions, environment: [String: String]) throws(UsageError) {
        if let region = options.region { S3Request.defaultRegion = region }
        if let endpoint = options.endpoint {
            S3Request.defaultEndpoint = endpoint
            return
        }
        for name in ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            do {
                S3Request.defaultEndpoint = try ValueParsing(command: "s3").url(value)
            } catch {
                throw UsageError("\(name) is not an http or https URL: \(error.message)", command: "s3")
            }
            return
        }
    }
}
