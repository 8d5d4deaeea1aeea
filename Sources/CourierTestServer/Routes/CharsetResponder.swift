extension Route {
    /// `/charset/<name>` (`/charset/none` for nil): text encoded in that charset with
    /// `Content-Type: text/plain; charset=<name>`, or plain `text/plain` and
    /// ISO-8859-1 bytes for nil. ``TestServer/charsetSampleText(for:)`` says which text.
    public static func charset(_ name: String?) -> Route { Route(CharsetResponder(charset: name, inMiddle: false)) }

    /// `/charset/<name>?position=middle`: like ``charset(_:)``, but the charset is
    /// a middle parameter: `text/plain; format=flowed; charset=<name>; delsp=yes`.
    public static func charsetInMiddle(_ name: String) -> Route {
        Route(CharsetResponder(charset: name, inMiddle: true))
    }
}

/// Serves ``Route/charset(_:)`` and ``Route/charsetInMiddle(_:)``: sample text encoded
/// in the named charset and labelled with it in `Content-Type`.
struct CharsetResponder: Endpoint {
    /// The charset name as given in the path; nil for `/charset/none`.
    let charset: String?
    /// Whether the charset goes between other media-type parameters, to catch
    /// clients that only look for it at the end.
    let inMiddle: Bool

    func respond(to exchange: Exchange) throws {
        // "none" means no charset parameter in the middle form too, as for `.charset(nil)`.
        let charset = inMiddle && self.charset?.lowercased() == "none" ? nil : self.charset
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

extension CharsetResponder {
    static let segments = ["charset"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, !target.arguments[0].isEmpty else { return nil }
        let name = target.arguments[0]
        if target.query.contains(where: { $0.name == "position" && $0.value == "middle" }) {
            self.init(charset: name, inMiddle: true)
        } else {
            self.init(charset: name == "none" ? nil : name, inMiddle: false)
        }
    }
    var path: String {
        "/charset/" + (charset.map(PercentCoding.encode) ?? "none") + (inMiddle ? "?position=middle" : "")
    }
}
