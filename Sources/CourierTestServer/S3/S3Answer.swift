/// A successful S3 answer, made under the server's lock and written after it.
struct S3Answer: Sendable {
    var status = 200
    var headers: [HeaderField] = []
    var body: [UInt8] = []

    /// An answer with an XML document.
    static func xml(_ document: String, status: Int = 200) -> S3Answer {
        S3Answer(
            status: status, headers: [HeaderField(name: "Content-Type", value: "application/xml")],
            body: Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + document).utf8))
    }
}
