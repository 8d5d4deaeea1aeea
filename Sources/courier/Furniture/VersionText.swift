import Courier

/// `courier --version`: Courier's version, then the libcurl it runs on, its protocols and
/// features, as `curl --version` lays them out, so a bug report can say what was used.
enum VersionText {
    static var text: String {
        // The first line stays "courier VERSION" alone, for scripts that read only it.
        var lines = ["courier \(courierVersion)", "Courier \(courierVersion) on \(CurlVersionInfo.versionLine)"]
        let protocols = CurlVersionInfo.protocols
        if !protocols.isEmpty { lines.append("Protocols: " + protocols.joined(separator: " ")) }
        let features = CurlVersionInfo.features
        if !features.isEmpty { lines.append("Features: " + features.joined(separator: " ")) }
        return lines.joined(separator: "\n")
    }
}
