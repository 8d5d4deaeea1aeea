/// An ordered list of HTTP header fields that keeps the sender's spelling.
///
/// Lookup is case-insensitive (`headers["content-type"]`). Adding a field whose name is already
/// present joins the values with ", " in the first field's place, as HTTP allows, except for
/// `Set-Cookie`, whose fields stay apart (a cookie's `Expires` contains a comma). Iterating gives
/// one `(name, value)` per field, in order.
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field's name, spelled as the sender spelled it.
        public var name: String
        /// The field's value; for a repeated name (not `Set-Cookie`), all of its values joined with ", ".
        public var value: String

        /// A field with this name and value, taken as given.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private(set) var fields: [Field] = []

    /// An empty list.
    public init() {}

    /// A list with the given fields, in order; repeated names are joined as by `add(name:value:)`.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { add(name: name, value: value) }
    }

    /// A list with the literal's fields, in order (`["Accept": "text/html"]`); repeated names are
    /// joined as by `add(name:value:)`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// True when there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the named field (case-insensitive), or nil. For `Set-Cookie`, the first one:
    /// use `values(for:)` for all of them. Setting replaces every field with that name (keeping
    /// the first one's place and spelling); setting nil removes them.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value }
        set {
            guard let newValue else {
                fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
                return
            }
            if let index = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) {
                fields[index].value = newValue
                var next = fields.index(after: index)
                while next < fields.endIndex {
                    if fields[next].name.equalsIgnoringASCIICase(name) {
                        fields.remove(at: next)
                    } else {
                        next = fields.index(after: next)
                    }
                }
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Every value of the named field, in order (several only for `Set-Cookie`).
    public func values(for name: String) -> [String] {
        fields.lazy.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// True when a field with that name (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Adds a field; a repeated name (other than `Set-Cookie`) is joined to the earlier one with ", ".
    public mutating func add(name: String, value: String) {
        if !name.equalsIgnoringASCIICase("Set-Cookie"),
            let index = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) })
        {
            fields[index].value += ", " + value
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Removes every field with that name.
    public mutating func remove(name: String) {
        self[name] = nil
    }

    /// The fields as a dictionary keyed by the sender's spelling (ASI's `responseHeaders` shape);
    /// repeated `Set-Cookie` fields are joined with ", ".
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            if let existing = result[field.name] {
                result[field.name] = existing + ", " + field.value
            } else {
                result[field.name] = field.value
            }
        }
        return result
    }

    public func makeIterator() -> Iterator {
        Iterator(fields: fields.makeIterator())
    }

    /// Gives each field as `(name, value)`, in order.
    public struct Iterator: IteratorProtocol {
        var fields: IndexingIterator<[Field]>

        public mutating func next() -> (name: String, value: String)? {
            guard let field = fields.next() else { return nil }
            return (field.name, field.value)
        }
    }

    /// The fields as "Name: value" lines, in order, joined with "\n".
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension String {
    /// ASCII case-insensitive equality, without allocating: header names are ASCII tokens.
    /// Compares contiguous UTF-8 storage directly where there is some (native strings), which
    /// matters because it runs for every header of every request and response.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in ASCIICase.equal(a, b) }
        }
        if let result = fast ?? nil { return result }
        for (x, y) in zip(utf8, other.utf8) where x != y {
            if ASCIICase.folded(x) != ASCIICase.folded(y) { return false }
        }
        return true
    }
}
