// `import Courier` is enough for URL, URLRequest, HTTPCookie and friends.
@_exported import Foundation

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
