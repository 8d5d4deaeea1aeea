@testable import Courier
import Foundation

/// A `FindProxyForURL` answer ("PROXY a:1; DIRECT") read into the choices Courier tries, each
/// turned into libcurl's proxy string and written as a PAC entry again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPACResult(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let answer = FuzzInput(data, size).text
    let (choices, _) = PACChoice.parse(answer)
    for choice in choices {
        _ = choice.address
        guard case .proxy(let kind, let host, let port) = choice else {
            fuzzCheck(choice.curlProxy.isEmpty, "DIRECT with a proxy string")
            continue
        }
        fuzzCheck(!host.isEmpty, "a proxy without a host")
        fuzzCheck((1...65535).contains(port), "port \(port)")
        fuzzCheck(host == host.lowercased(), "a host not lower-cased")
        let proxy = choice.curlProxy
        fuzzCheck(proxy.hasPrefix(kind.curlScheme + "://"), "\(proxy) has another scheme")
        fuzzCheck(proxy.hasSuffix(":\(port)"), "\(proxy) has another port")
        // The choice written as a PAC entry (an IPv6 host in brackets) reads back the same.
        let again = PACChoice.parse(choice.description).choices
        fuzzCheck(again == [choice], "\(choice.description.debugDescription) reads back as \(again)")
    }
    return 0
}
