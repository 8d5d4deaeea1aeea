/// A resource a page or a stylesheet refers to, as written there: what WebPageRequest fetches (or
/// leaves alone) and may rewrite.
struct WebPageReference: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `link rel=stylesheet href`, or a stylesheet's `@import`.
        case stylesheet
        /// `script src`.
        case script
        /// `img src`/`srcset`, `video poster`, `picture`'s `source srcset`, and a stylesheet's
        /// `url(...)` (backgrounds, fonts: whatever the rule names).
        case image
        /// `frame src`, `iframe src`: pages of their own.
        case frame
        /// `video src`, `audio src`, `source src`.
        case media
    }

    let kind: Kind
    /// The URL as written (entities decoded, surrounding spaces trimmed), before resolving.
    let url: String
}
