import Courier
import Foundation

/// Makes the `FormDataRequest` for `-F` parts (and the demo's form upload).
enum FormRequestBuilder {
    /// A form POST to `url`: urlencoded, or multipart once a file is among the parts. Files are
    /// streamed from disk when the request is sent; one that cannot be read fails the request.
    static func request(url: URL, parts: [PostOptions.FormPart]) -> FormDataRequest {
        let request = FormDataRequest(url: url)
        for part in parts {
            switch part {
            case .value(let key, let value):
                request.addPostValue(value, forKey: key)
            case .file(let key, let path, let contentType, let fileName):
                request.addFile(path, withFileName: fileName, andContentType: contentType, forKey: key)
            }
        }
        return request
    }
}
