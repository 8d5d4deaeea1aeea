import CCurl

/// What every libcurl callback of one transfer receives as its user-data pointer
/// (`CURLOPT_HEADERDATA`, `CURLOPT_WRITEDATA`, `CURLOPT_READDATA`, `CURLOPT_SEEKDATA`) and what
/// `CURLINFO_PRIVATE` gives back.
///
/// Its lifetime is explicit: the engine retains it (`Unmanaged.passRetained`) before the handle
/// joins the multi handle and releases it only after `curl_multi_remove_handle` returned, which
/// is the only span in which libcurl calls back with the pointer. A callback therefore always
/// finds it alive, whatever else let go of the transfer (corelibs' crash on multi cleanup came
/// from callbacks reaching objects through bare pointers). It holds the transfer strongly, and
/// the transfer its request (`Transfer.sink`) until the transfer completes: nothing a callback
/// reaches can be freed under it. Not weakly: a weak reference moves every retain and release
/// of the request onto Swift's side-table slow path, 5,400 instructions of a 1 KiB GET's 116,500
/// (4.6%, callgrind), and a running request is held by its queue or its waiting thread anyway.
///
/// Engine thread only, like the transfer it leads to.
final class CallbackContext {
    /// The transfer; nil once the engine has detached it (a handle libcurl would not let go).
    private(set) var transfer: Transfer?

    init(_ transfer: Transfer) {
        self.transfer = transfer
    }

    /// Lets go of the transfer while libcurl may still hold the pointer: its callbacks then find
    /// no transfer and stop the transfer.
    func detach() {
        transfer = nil
    }

    /// The context behind a pointer libcurl passed to a callback or gave back through
    /// `CURLINFO_PRIVATE`: retained by the engine meanwhile, so taken here without a retain.
    @inline(__always)
    static func transfer(from pointer: UnsafeMutableRawPointer) -> Transfer? {
        Unmanaged<CallbackContext>.fromOpaque(pointer).takeUnretainedValue().transfer
    }
}

@available(*, unavailable, message: "CallbackContext is confined to the engine thread")
extension CallbackContext: Sendable {}
