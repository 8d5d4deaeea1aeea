import Foundation

extension TestServer {
    /// The MD5 digest of `data` as 32 lowercase hex digits: what ``Route/gunzipEcho``
    /// reports as `decodedMD5`, so a test can compare a large upload without its bytes.
    public static func md5Hex(of data: Data) -> String {
        var digest = MD5()
        data.withUnsafeBytes { digest.update($0) }
        return digest.finalizeHex()
    }

    /// The exact body ``Route/corruptGzip`` serves.
    public static var corruptGzipBody: Data { Data(CorruptGzipResponder.body) }
}
