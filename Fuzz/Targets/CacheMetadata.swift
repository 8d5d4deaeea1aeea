@testable import Courier
import Foundation

/// A `<key>.cachedheaders` file read as the download cache reads it (`CacheFileIO.readFile`,
/// `CacheEntryMetadata.decode`), its fields used as a hit uses them, and the metadata encoded
/// and decoded again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let directory = fuzzTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/entry.cachedheaders"
    fuzzWriteFile(input.bytes, to: path)
    guard let read = try? CacheFileIO.readFile(path) else {
        fuzzCheck(false, "a regular file of this user could not be read")
        return 0
    }
    fuzzCheck(read == Data(input.bytes), "readFile gave other bytes")
    guard let metadata = CacheEntryMetadata.decode(read) else { return 0 }
    fuzzCheck(metadata.bodyLength >= 0, "a negative body length was accepted")
    let headers = metadata.httpHeaders
    _ = RawHeaderBlock(headers).parsed()
    _ = metadata.expiryDate
    _ = Date(timeIntervalSince1970: metadata.storedAt)
    guard let encoded = try? metadata.encoded() else { return 0 }
    guard let again = CacheEntryMetadata.decode(encoded) else {
        fuzzCheck(false, "encoded metadata does not decode: \(String(decoding: encoded, as: UTF8.self))")
        return 0
    }
    fuzzCheck(again == metadata, "metadata differs after encoding and decoding")
    return 0
}
