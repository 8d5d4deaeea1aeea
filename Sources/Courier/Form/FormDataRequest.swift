import Foundation

/// A request that posts a form, as a web browser does: fields url-encoded, or, once a file or
/// data part is added, `multipart/form-data` with files streamed from disk while they are sent
/// (never read whole). ASIHTTPRequest's ASIFormDataRequest.
///
/// ```swift
/// let form = FormDataRequest(url: uploadURL)
/// form.setPostValue("Ben", forKey: "first_name")
/// form.addFile("/tmp/photo.jpg", forKey: "photo")
/// form.startSynchronous()
/// ```
///
/// POST unless you set another method (PUT works too). A file that cannot be read fails the
/// request with `internalErrorWhileBuildingRequest`, naming it, before anything is sent.
///
/// `@unchecked Sendable`: the form's parts live in `form`, read and written under its lock.
open class FormDataRequest: HTTPRequest, @unchecked Sendable {
    let form = Locked(FormState())

    /// Makes an empty form for `url`, sent with POST unless you set another method.
    public required init(url: URL) {
        super.init(url: url)
        // A default, not a choice the user made: HTTPRequest's method rule still applies.
        state.withLock { $0.config.requestMethod = "POST" }
    }

    // MARK: - Fields

    /// Adds a text field; repeated keys are kept, in order.
    public func addPostValue(_ value: String, forKey key: String) {
        form.withLock { $0.fields.append(FormState.Field(key: key, value: value)) }
    }

    /// Replaces every text field with this key by one with `value`.
    public func setPostValue(_ value: String, forKey key: String) {
        form.withLock { form in
            form.fields.removeAll { $0.key == key }
            form.fields.append(FormState.Field(key: key, value: value))
        }
    }

    // MARK: - Files and data

    /// Adds a file part, streamed from `path` when sent; its file name is the path's last
    /// component and its content type comes from the file name.
    public func addFile(_ path: String, forKey key: String) {
        addFile(path, withFileName: nil, andContentType: nil, forKey: key)
    }

    /// Adds a file part with a file name and content type of your choice (nil: derived).
    public func addFile(
        _ path: String, withFileName fileName: String?, andContentType contentType: String?, forKey key: String
    ) {
        let name = fileName ?? (path as NSString).lastPathComponent
        let type = contentType ?? Self.mimeType(forFileAtPath: path) ?? Self.mimeType(forFileName: name)
        form.withLock {
            $0.parts.append(FormState.Part(key: key, source: .file(path), fileName: name, contentType: type))
        }
    }

    /// Replaces the file and data parts with this key by one file part.
    public func setFile(_ path: String, forKey key: String) {
        removeParts(forKey: key)
        addFile(path, forKey: key)
    }

    /// Replaces the file and data parts with this key by one file part.
    public func setFile(
        _ path: String, withFileName fileName: String?, andContentType contentType: String?, forKey key: String
    ) {
        removeParts(forKey: key)
        addFile(path, withFileName: fileName, andContentType: contentType, forKey: key)
    }

    /// Adds a data part named "file", of type application/octet-stream.
    public func addData(_ data: Data, forKey key: String) {
        addData(data, withFileName: nil, andContentType: nil, forKey: key)
    }

    /// Adds a data part with a file name and content type of your choice (nil: "file" and
    /// application/octet-stream).
    public func addData(
        _ data: Data, withFileName fileName: String?, andContentType contentType: String?, forKey key: String
    ) {
        let part = FormState.Part(
            key: key, source: .data(data), fileName: fileName ?? "file",
            contentType: contentType ?? "application/octet-stream")
        form.withLock { $0.parts.append(part) }
    }

    /// Replaces the file and data parts with this key by one data part.
    public func setData(_ data: Data, forKey key: String) {
        removeParts(forKey: key)
        addData(data, forKey: key)
    }

    /// Replaces the file and data parts with this key by one data part.
    public func setData(
        _ data: Data, withFileName fileName: String?, andContentType contentType: String?, forKey key: String
    ) {
        removeParts(forKey: key)
        addData(data, withFileName: fileName, andContentType: contentType, forKey: key)
    }

    private func removeParts(forKey key: String) {
        form.withLock { $0.parts.removeAll { $0.key == key } }
    }

    // MARK: - Format

    /// `.urlEncoded` unless a file or data part has been added, which makes it `.multipart`;
    /// setting `.multipart` sends fields alone as multipart too.
    public var postFormat: PostFormat {
        get { form.withLock { $0.effectiveFormat } }
        set { form.withLock { $0.chosenFormat = newValue } }
    }

    /// The encoding for field values (and names), named in the Content-Type's charset (UTF-8).
    public var stringEncoding: String.Encoding {
        get { form.withLock { $0.stringEncoding } }
        set { form.withLock { $0.stringEncoding = newValue } }
    }

    // MARK: - MIME types

    /// The media type for a file by its name's extension ("text/plain" for .txt), from the
    /// system's mime.types with a built-in fallback; "application/octet-stream" when unknown,
    /// nil when no file exists at `path`.
    public static func mimeType(forFileAtPath path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return mimeType(forFileName: (path as NSString).lastPathComponent)
    }

    static func mimeType(forFileName name: String) -> String {
        let pathExtension = (name as NSString).pathExtension
        guard !pathExtension.isEmpty else { return "application/octet-stream" }
        return MIMETypes.type(forExtension: pathExtension) ?? "application/octet-stream"
    }

    // MARK: - HTTPRequest hooks

    override func buildBodyBeforeFirstAttempt() {
        let form = self.form.current
        guard !form.fields.isEmpty || !form.parts.isEmpty else { return }
        let built = form.effectiveFormat == .urlEncoded ? form.urlEncodedBody() : form.multipartBody()
        let replaced = state.withLock { state -> FormState.ReplacedByBuild in
            let replaced = FormState.ReplacedByBuild(
                postBody: state.config.postBody,
                shouldStreamPostDataFromDisk: state.config.shouldStreamPostDataFromDisk,
                diskBody: state.config.diskBody)
            switch built.body {
            case .memory(let data):
                state.config.postBody = data
            case .pieces(let pieces):
                state.config.shouldStreamPostDataFromDisk = true
                state.config.diskBody = pieces
                state.config.postBody = nil
            }
            // Sent unless the user gave a Content-Type; not stored as one of the user's headers,
            // so a copy (which builds its body, and boundary, again) does not send this one.
            state.config.builtBodyContentType = built.contentType
            state.config.unbuildableBody = FormEncoding.refusal(ofContentTypes: form.parts.map(\.contentType))
            return replaced
        }
        self.form.withLock { $0.replacedByBuild = replaced }
    }

    /// Copies the form too. A copy of a request that has started gets the configuration as the
    /// user left it, not the body built from the form: it builds its own, with a boundary and a
    /// Content-Type of its own.
    open override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        guard let copy = copy as? FormDataRequest else { return }
        var form = self.form.current
        if let replaced = form.replacedByBuild {
            copy.state.withLock { replaced.restore(in: &$0.config) }
            form.replacedByBuild = nil
        }
        copy.form.withLock { $0 = form }
    }
}
