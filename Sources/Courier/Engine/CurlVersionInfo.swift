import CCurl

/// What the libcurl Courier runs on was built with, for `courier --version`. Package-wide, not
/// public: the CLI shows it, and no `curl_` call may live outside `Engine/`.
package enum CurlVersionInfo {
    /// "libcurl/7.88.1 OpenSSL/3.0.x zlib/1.2.13 …": libcurl and the libraries it uses.
    package static var versionLine: String { String(cString: curl_version()) }

    /// The protocols it speaks ("http", "https", …).
    package static var protocols: [String] {
        guard let info = curl_version_info(CURLVERSION_FOURTH), let list = info.pointee.protocols else { return [] }
        return strings(list)
    }

    /// Its features by name ("HTTP2", "IPv6", "libz", …); empty for a libcurl older than 7.87,
    /// whose version record has no names (`feature_names` came with CURLVERSION_ELEVENTH).
    package static var features: [String] {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH),
            info.pointee.age.rawValue >= CURLVERSION_ELEVENTH.rawValue, let list = info.pointee.feature_names
        else { return [] }
        return strings(list)
    }

    /// The strings of a NULL-terminated C array.
    private static func strings(_ list: UnsafePointer<UnsafePointer<CChar>?>) -> [String] {
        var result: [String] = []
        var cursor = list
        while let item = cursor.pointee {
            result.append(String(cString: item))
            cursor += 1
        }
        return result
    }
}
