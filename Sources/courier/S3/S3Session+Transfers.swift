import Courier
import Foundation

extension S3Session {
    /// `cp FILE s3://BUCKET/KEY`: one PUT streamed from disk, or a multipart upload above
    /// `--multipart-threshold`, with the bar; then `upload: ./FILE to s3://BUCKET/KEY`.
    func upload(_ file: String, to location: S3Location) async -> Int32 {
        let failed = "upload failed: \(Self.displayPath(file)) to \(location)"
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
        guard exists, !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: file),
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
        else {
            let why = !exists ? "no such file" : isDirectory.boolValue ? "a folder, not a file" : "not readable"
            Console.error("\(failed) cannot read \(file): \(why)")
            return 1
        }
        display = options.request.drawsProgress ? ProgressDisplay() : nil
        let error: HTTPRequestError?
        if size > options.multipartThreshold {
            error = await uploadInParts(file, to: location)
        } else {
            let request = S3ObjectRequest.put(file: file, bucket: location.bucket, key: location.key)
            request.uploadProgressDelegate = display?.bar
            error = await send(request)
        }
        return finish(
            error.map { "\(failed) \(Self.reason(for: $0))" }, or: "upload: \(Self.displayPath(file)) to \(location)")
    }

    /// `cp s3://BUCKET/KEY FILE|DIR|-`: the object straight to `FILE.part`, renamed to FILE once
    /// whole, or to standard output as it arrives. A download that fails keeps `FILE.part`, and
    /// `-c` resumes it with a Range request.
    func download(_ location: S3Location, to destination: String) async -> Int32 {
        let request = S3ObjectRequest(bucket: location.bucket, key: location.key)
        // The object's bytes as stored: a Content-Encoding it was stored with is not undone.
        request.allowCompressedResponse = false
        display = options.request.drawsProgress ? ProgressDisplay() : nil
        request.downloadProgressDelegate = display?.bar
        guard destination != "-" else { return await downloadToStandardOutput(request, from: location) }
        let path = Self.downloadPath(for: location, destination: destination)
        let failed = "download failed: \(location) to \(Self.displayPath(path))"
        let partPath = path + ".part"
        do {
            if !options.resumes, FileManager.default.fileExists(atPath: partPath) {
                try FileManager.default.removeItem(atPath: partPath)
            }
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
        } catch {
            Console.error("\(failed) \(error.localizedDescription)")
            return 1
        }
        request.downloadDestinationPath = path
        request.temporaryFileDownloadPath = partPath
        // Kept on failure and on Ctrl-C, with or without -c, so that the next run can resume it.
        request.allowResumeForFileDownloads = true
        let error = await send(request)
        var failure = error.map { "\(failed) \(Self.reason(for: $0))" }
        if failure != nil, FileManager.default.fileExists(atPath: partPath) {
            failure! += " (the part received is kept as \(partPath): run again with -c to resume it)"
        }
        return finish(failure, or: "download: \(location) to \(Self.displayPath(path))")
    }

    /// Where a download goes: into a folder (one that exists, or a path ending in "/") under the
    /// key's last segment, as `aws s3 cp` names it; else the path given.
    static func downloadPath(for location: S3Location, destination: String) -> String {
        var isDirectory: ObjCBool = false
        let isFolder =
            destination.hasSuffix("/")
            || (FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue)
        guard isFolder else { return destination }
        return (destination as NSString).appendingPathComponent(location.lastSegment)
    }

    private func downloadToStandardOutput(_ request: S3ObjectRequest, from location: S3Location) async -> Int32 {
        let lost = LostOutput()
        request.callbackQueue = .main
        request.setDataReceivedBlock { request, data in
            MainActor.assumeIsolated {
                guard lost.failure == nil else { return }
                do throws(BodyOutput.Failure) {
                    try BodyOutput.standardOutput.write(data)
                } catch {
                    // The rest would go nowhere: stop receiving it, and fail.
                    lost.failure = error
                    request.cancel()
                }
            }
        }
        let error = await send(request)
        let failed = "download failed: \(location) to -"
        if let written = lost.failure { return finish("\(failed) \(written)", or: "") }
        // Standard output holds the object: nothing else is printed there.
        return finish(error.map { "\(failed) \(Self.reason(for: $0))" }, or: nil)
    }

    /// Ends the bar, then prints the failure on standard error (exit 1), or the success line on
    /// standard output (exit 0; none with `-q`, or when `success` is nil).
    private func finish(_ failure: String?, or success: String?) -> Int32 {
        // A failure's bar would end at 100% of an error document: it goes instead.
        if failure == nil { display?.finish() } else { display?.clear() }
        display = nil
        if let failure {
            Console.error(failure)
            return 1
        }
        if let success, !options.request.isQuiet { Console.out(success) }
        return 0
    }

    /// Why standard output stopped taking the object, once a write failed.
    @MainActor
    private final class LostOutput {
        var failure: BodyOutput.Failure?
    }
}
