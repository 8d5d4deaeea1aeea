/// How a `FormDataRequest` encodes its fields.
public enum PostFormat: Sendable, Hashable {
    /// `multipart/form-data`: fields and files, each a part (forced when there is a file).
    case multipart
    /// `application/x-www-form-urlencoded`: `key=value&…`, fields only.
    case urlEncoded
}
