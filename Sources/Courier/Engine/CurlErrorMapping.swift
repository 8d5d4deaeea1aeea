import CCurl
import Foundation

/// The one place a `CURLcode` becomes a `NetworkErrorType`.
enum CurlErrorMapping {
    static func type(for code: CURLcode) -> NetworkErrorType {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .requestTimedOut
        case CURLE_URL_MALFORMAT:
            return .unableToCreateRequest
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooMuchRedirection
        case CURLE_BAD_CONTENT_ENCODING, CURLE_FILESIZE_EXCEEDED:
            return .compression
        case CURLE_WRITE_ERROR:
            return .fileManagement
        case CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND, CURLE_BAD_FUNCTION_ARGUMENT,
            CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN:
            return .internalErrorWhileBuildingRequest
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return .authentication
        case CURLE_ABORTED_BY_CALLBACK:
            return .requestCancelled
        case CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT:
            return .unhandledException
        default:
            // CURLE_UNSUPPORTED_PROTOCOL lands here too: Courier checks schemes before sending, so
            // libcurl only reports it for a response it cannot read ("Unsupported HTTP version").
            // Refused, DNS failure, reset, truncated or malformed responses, TLS failures,
            // proxy failures: all connection failures to ASI.
            return .connectionFailure
        }
    }

    static func isTLSFailure(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_USE_SSL_FAILED:
            return true
        default:
            return false
        }
    }

    /// The error for a failed transfer, with libcurl's own text and the URL; `clientCertificate`
    /// is what the transfer presented, for a message that says what went wrong with it.
    static func error(
        for code: CURLcode, text: String, url: URL?, clientCertificate: ClientCertificate? = nil
    ) -> HTTPRequestError {
        let curlText = text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
        let message =
            clientCertificateMessage(for: code, text: curlText, certificate: clientCertificate)
            ?? message(for: code, text: curlText)
        return HTTPRequestError(type: type(for: code), message: message, url: url, curlCode: Int(code.rawValue))
    }

    /// libcurl's text for `code`, with what a user needs to know first.
    private static func message(for code: CURLcode, text: String) -> String {
        if code == CURLE_SSL_CACERT_BADFILE {
            // The trust store itself, not the server: blaming the certificate or the clock would
            // send the user the wrong way.
            return "The CA bundle (caBundlePath) is not a readable file of PEM certificates: " + text
        }
        if isTLSFailure(code) {
            return "TLS problem (possible causes: a bad, expired or self-signed certificate, "
                + "or the clock set to a wrong date): " + text
        }
        if code == CURLE_WEIRD_SERVER_REPLY {
            // libcurl's own refusals of a response ("Invalid Content-Length: value"), worded as
            // Courier's framing checks word theirs.
            return "The server sent a malformed response: " + text
        }
        return text
    }

    /// The error for a request whose transfer a multi-interface call (`call`, such as
    /// "curl_multi_add_handle") failed: the engine, not the network, went wrong, so
    /// `unhandledException` (ASIUnhandledExceptionError), with libcurl's text for the code.
    static func error(for code: CURLMcode, in call: String, url: URL?) -> HTTPRequestError {
        HTTPRequestError(type: .unhandledException, message: "\(call) failed: \(CurlMultiError(code: code))", url: url)
    }
}
