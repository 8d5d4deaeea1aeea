import CDuktape
import Foundation

/// The PAC helpers that need the system: name resolution and the host's own address. Called by
/// Duktape on the thread evaluating the script (never the engine thread: `PACResolver` runs
/// scripts on its own queue), so a blocking `getaddrinfo` holds up only PAC work.
enum PACNatives {
    /// Installs the natives as globals of `context`.
    static func install(in context: OpaquePointer) {
        register(context, "dnsResolve", arguments: 1, dnsResolve)
        register(context, "isResolvable", arguments: 1, isResolvable)
        register(context, "myIpAddress", arguments: 0, myIpAddress)
    }

    private static func register(
        _ context: OpaquePointer, _ name: String, arguments: Int32,
        _ function: @escaping @convention(c) (OpaquePointer?) -> duk_ret_t
    ) {
        duk_push_c_function(context, function, arguments)
        duk_put_global_string(context, name)
    }

    /// `dnsResolve(host)`: the host's first IPv4 address in dotted form, or null.
    private static let dnsResolve: @convention(c) (OpaquePointer?) -> duk_ret_t = { context in
        guard let context else { return 0 }
        if let address = firstIPv4Address(of: hostArgument(context)) {
            duk_push_string(context, address)
        } else {
            duk_push_null(context)
        }
        return 1
    }

    /// `isResolvable(host)`: whether the host has an IPv4 address.
    private static let isResolvable: @convention(c) (OpaquePointer?) -> duk_ret_t = { context in
        guard let context else { return 0 }
        duk_push_boolean(context, firstIPv4Address(of: hostArgument(context)) == nil ? 0 : 1)
        return 1
    }

    /// `myIpAddress()`: the first IPv4 address of an interface that is up and not loopback, else
    /// 127.0.0.1. Read from the interfaces (getifaddrs), so it sends nothing, unlike resolving
    /// the host's own name.
    private static let myIpAddress: @convention(c) (OpaquePointer?) -> duk_ret_t = { context in
        guard let context else { return 0 }
        duk_push_string(context, ownIPv4Address() ?? "127.0.0.1")
        return 1
    }

    /// The first argument as a string ("" when it is missing or not convertible).
    private static func hostArgument(_ context: OpaquePointer) -> String {
        guard let text = duk_safe_to_lstring(context, 0, nil) else { return "" }
        return String(cString: text)
    }

    static func firstIPv4Address(of host: String) -> String? {
        guard !host.isEmpty else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr, current.pointee.ai_family == AF_INET {
                return dotted(address)
            }
            entry = current.pointee.ai_next
        }
        return nil
    }

    static func ownIPv4Address() -> String? {
        var interfaces: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&interfaces) == 0, let interfaces else { return nil }
        defer { freeifaddrs(interfaces) }
        var entry: UnsafeMutablePointer<ifaddrs>? = interfaces
        while let current = entry {
            let flags = Int(current.pointee.ifa_flags)
            if let address = current.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                flags & IFF_UP != 0, flags & IFF_LOOPBACK == 0
            {
                return dotted(address)
            }
            entry = current.pointee.ifa_next
        }
        return nil
    }

    private static func dotted(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            var bytes = ipv4.pointee.sin_addr
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &bytes, &text, socklen_t(INET_ADDRSTRLEN)) != nil else { return nil }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
