@testable import Courier
import Foundation

/// `WWW-Authenticate` / `Proxy-Authenticate` values (one per line, as a response with several
/// fields gives them), read into challenges and the one Courier answers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let values = FuzzInput(data, size).strings(separatedBy: 0x0A)
    let challenges = AuthenticationChallenge.parse(values)
    for challenge in challenges {
        fuzzCheck(!challenge.scheme.isEmpty, "a challenge without a scheme")
        fuzzCheck(!challenge.scheme.contains(" "), "a scheme with a space: \(challenge.scheme.debugDescription)")
        _ = challenge.method
    }
    if let chosen = AuthenticationChallenge.strongest(in: challenges) {
        fuzzCheck(chosen.method != nil, "the strongest challenge is one Courier does not speak")
        fuzzCheck(challenges.contains(chosen), "the strongest challenge is not among them")
    }
    // Reading the fields one by one gives the same challenges in the same order when no field
    // starts with a parameter (one that does belongs to the previous field's last challenge).
    let separately = values.flatMap { AuthenticationChallenge.parse([$0]) }
    if separately.count == challenges.count {
        for (a, b) in zip(separately, challenges) {
            fuzzCheck(a.scheme == b.scheme, "the schemes differ when read field by field")
        }
    }
    return 0
}
