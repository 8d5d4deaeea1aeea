/// One HTTP header line: a name and a value, as they appeared on the wire.
public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The field name in its original spelling (case preserved), e.g. `"Content-Type"`.
    public let name: String
    /// The field value with surrounding whitespace removed.
    public let value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `"Name: value"`.
    public var description: String { "\(name): \(value)" }
}
