import CCurl
import Foundation

/// Failures of the proxy itself, told apart from the origin's so the message names the proxy.
extension CurlErrorMapping {
    /// The error for a failed transfer that went through `proxy` ("socks5://host:port", no
    /// credentials in it), or nil when the failure is not the proxy's. Engine thread.
    ///
    /// libcurl connects only to the proxy when one is in use, so a refused or unreachable
    /// connection (`CURLE_COULDNT_CONNECT`) is the proxy's; it never tries the origin directly
    /// instead. `CURLE_PROXY` is a SOCKS or tunnel handshake the proxy refused (its reason in
    /// `CURLINFO_PROXY_ERROR`, already in libcurl's text), and a TLS failure is the proxy's
    /// when `CURLINFO_PROXY_SSL_VERIFYRESULT` says its certificate did not verify.
    static func proxyError(
        for code: CURLcode, text: String, url: URL?, proxy: String, proxyCertificateFailed: Bool
    ) -> HTTPRequestError? {
        let isProxyFailure =
            switch code {
            case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_PROXY: true
            default: isTLSFailure(code) && proxyCertificateFailed
            }
        guard isProxyFailure else { return nil }
        let curlText = text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
        let what = isTLSFailure(code) ? "The proxy's TLS certificate was refused" : "The proxy could not be used"
        return HTTPRequestError(
            type: .connectionFailure,
            message: "\(what) (\(proxy)); the request was not sent without it: \(curlText)",
            url: url, curlCode: Int(code.rawValue))
    }
}
