import CCurl

/// A libcurl call that failed: its code and the text libcurl gave for it.
struct CurlError: Error, CustomStringConvertible {
    let code: CURLcode
    let text: String

    init(_ code: CURLcode, text: String? = nil) {
        self.code = code
        self.text = text.flatMap { $0.isEmpty ? nil : $0 } ?? String(cString: curl_easy_strerror(code))
    }

    var description: String { "\(text) (curl code \(code.rawValue))" }
}

/// A libcurl multi-interface call that failed.
struct CurlMultiError: Error, CustomStringConvertible {
    let code: CURLMcode

    var description: String { String(cString: curl_multi_strerror(code)) + " (curl multi code \(code.rawValue))" }
}
