@testable import Courier
import Foundation

/// The credential file (`PersistentCredentialStore`) read as the store reads it
/// (`CredentialFileIO.read`: a 0600 regular file of this user), looked up, written back with
/// `CredentialFileIO.write` and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCredentialFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let directory = fuzzTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/credentials.json"
    fuzzWriteFile(input.bytes, to: path)
    let file: CredentialFile
    do {
        guard let read = try CredentialFileIO.read(path) else { return abortWith("the file was not found") }
        file = read
    } catch {
        // Damaged is the one failure a regular 0600 file of this user may give.
        guard case .damaged = error else { return abortWith("read failed: \(error)") }
        _ = "\(error)"
        return 0
    }
    for server in file.servers {
        let found = file.server(protocol: server.protocol, host: server.host, port: server.port, realm: server.realm)
        fuzzCheck(found != nil, "a saved server is not found")
    }
    for proxy in file.proxies {
        fuzzCheck(file.proxy(host: proxy.host, port: proxy.port, realm: proxy.realm) != nil, "a proxy is not found")
    }
    let copy = directory + "/sub/credentials.json"
    do {
        try CredentialFileIO.write(file, to: copy)
        let again = try CredentialFileIO.read(copy)
        fuzzCheck(again == file, "the file differs after writing and reading")
    } catch {
        return abortWith("write or read back failed: \(error)")
    }
    return 0
}

private func abortWith(_ message: String) -> Int32 {
    fuzzCheck(false, message)
    return 0
}
