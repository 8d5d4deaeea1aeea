import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a Netscape line keeps of a cookie (whole seconds of the expiry; the value as it was).
func compareCookies(_ cookie: HTTPCookie, _ back: HTTPCookie, _ line: String) {
    fuzzCheck(back.name == cookie.name, "name differs after \(line.debugDescription)")
    fuzzCheck(back.value == cookie.value, "value differs after \(line.debugDescription)")
    fuzzCheck(back.domain == cookie.domain, "domain differs after \(line.debugDescription)")
    fuzzCheck(back.path == cookie.path, "path differs after \(line.debugDescription)")
    fuzzCheck(back.isSecure == cookie.isSecure, "secure differs after \(line.debugDescription)")
    fuzzCheck(back.isHTTPOnly == cookie.isHTTPOnly, "HttpOnly differs after \(line.debugDescription)")
    fuzzCheck((back.expiresDate == nil) == (cookie.expiresDate == nil), "expiry differs after \(line.debugDescription)")
}
