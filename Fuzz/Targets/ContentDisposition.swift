import Foundation

/// The CLI's `--content-disposition` file name (Sources/courier/Get/ContentDispositionName.swift,
/// compiled into this target): whatever the header, the name stays inside the output folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDisposition(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let header = FuzzInput(data, size).text
    guard let name = ContentDispositionName.fileName(from: header) else { return 0 }
    fuzzCheck(!name.isEmpty, "an empty name")
    // Bytes, not Characters: "." followed by a combining mark is one Character but still a dot file.
    fuzzCheck(name.utf8.first != UInt8(ascii: "."), "a hidden name or a dot name: \(name.debugDescription)")
    fuzzCheck(!name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F },
        "a separator or control character in \(name.debugDescription)")
    fuzzCheck(name.utf8.count <= OutputFileNamer.maxNameBytes, "a name longer than NAME_MAX")
    fuzzCheck(name == name.trimmingCharacters(in: .whitespaces), "an untrimmed name")
    let candidate = OutputFileNamer.candidate(name, attempt: Int(size % 7))
    fuzzCheck(candidate.utf8.count <= OutputFileNamer.maxNameBytes, "a candidate longer than NAME_MAX")
    return 0
}
