import CCurl
import Foundation

/// Response heads libcurl refused for their size, told apart from the engine's own failures.
extension CurlErrorMapping {
    /// libcurl's limit on one header line (CURL_MAX_HTTP_HEADER in lib/urldata.h).
    static let maxHeaderLineBytes = 100 * 1024

    /// The error for a transfer that ended before its response head was complete, when the
    /// code means the head was too large; nil for any other failure. Engine thread.
    ///
    /// libcurl 7.88 collects each header line in a buffer bounded by CURL_MAX_HTTP_HEADER and,
    /// when a line outgrows it, ends the transfer with CURLE_OUT_OF_MEMORY and no text (lib/http.c,
    /// `Curl_dyn_addn` on `headerb`; libcurl 8.6 says CURLE_TOO_LARGE instead). That is the
    /// server's malformed response, not the process running out of memory: a connection failure,
    /// as ASI reports a response it cannot read.
    static func oversizedHeadError(for code: CURLcode, text: String, url: URL?) -> HTTPRequestError? {
        guard code == CURLE_OUT_OF_MEMORY || code.rawValue == 100 /* CURLE_TOO_LARGE, libcurl 8.6 */ else {
            return nil
        }
        let detail = text.isEmpty ? "" : " (\(text))"
        return HTTPRequestError(
            type: .connectionFailure,
            message: "The server sent a malformed response: a header line longer than "
                + "\(maxHeaderLineBytes / 1024) KiB\(detail)",
            url: url, curlCode: Int(code.rawValue))
    }
}
