/// Serves ``Route/charset(_:)`` and ``Route/charsetInMiddle(_:)``: sample text encoded
/// in the named charset and labelled with it in `Content-Type`.
struct CharsetResponder: Responder {
    /// The charset name as given in the path; nil for `/charset/none`.
    let charset: String?
    /// Whether the charset goes between other media-type parameters, to catch
    /// clients that only look for it at the end.
    let inMiddle: Bool

    func respond(to exchange: Exchange) throws {
        let contentType: String
        switch (charset, inMiddle) {
        case (nil, false): contentType = "text/plain"
        case (nil, true): contentType = "text/plain; format=flowed; delsp=yes"
        case (let name?, false): contentType = "text/plain; charset=\(name)"
        case (let name?, true): contentType = "text/plain; format=flowed; charset=\(name); delsp=yes"
        }
        let body = TestServer.charsetSampleBody(for: charset)
        try exchange.respond(
            status: 200, headers: [HeaderField(name: "Content-Type", value: contentType)], body: Array(body))
    }
}
