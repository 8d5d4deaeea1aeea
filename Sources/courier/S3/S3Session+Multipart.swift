import Courier

extension S3Session {
    /// A file above `--multipart-threshold`: S3MultipartUpload, its parts several at once with the
    /// command line's request options, as one upload on the bar. Ctrl-C or a failure aborts it
    /// on the service, and only then does the command go on to exit.
    func uploadInParts(_ file: String, to location: S3Location) async -> HTTPRequestError? {
        let upload = S3MultipartUpload(file: file, bucket: location.bucket, key: location.key)
        let requestOptions = options.request
        upload.configure = { request in Self.configure(request, with: requestOptions) }
        upload.uploadProgressDelegate = display?.bar
        cancelRunning = { upload.cancel() }
        defer { cancelRunning = nil }
        do {
            _ = try await upload.upload()
            return nil
        } catch {
            return error
        }
    }
}
