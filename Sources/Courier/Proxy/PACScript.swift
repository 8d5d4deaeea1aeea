import CDuktape
import CourierThreadSanitizer
import Foundation
import Synchronization

/// Why a PAC file could not be used although it was read: it does not compile, defines no
/// `FindProxyForURL`, throws, or returns something other than a string.
struct PACScriptError: Error, Sendable, Equatable {
    var message: String
}

/// One PAC file compiled in a Duktape heap of its own, with the PAC helpers beside it.
///
/// A Duktape heap is not thread-safe: every use of `context` is under `mutex`, so any thread may
/// call `findProxy`; callers run it on `PACResolver`'s queue, never on the engine thread.
/// Only protected calls reach the heap (`duk_peval_lstring`, `duk_pcall`): an error thrown by
/// the script becomes a `PACScriptError`, never Duktape's fatal handler.
final class PACScript: @unchecked Sendable {
    // @unchecked Sendable: `context` is only touched while `mutex` is held.
    private let mutex = Mutex<Void>(())
    private let context: OpaquePointer

    /// Compiles `source` after the prelude; throws when it does not compile or does not define
    /// `FindProxyForURL`.
    init(source: String) throws(PACScriptError) {
        guard let context = cduk_create_heap_default() else {
            throw PACScriptError(message: "the JavaScript engine could not start (out of memory)")
        }
        self.context = context
        PACNatives.install(in: context)
        if let failure = Self.evaluate(PACPrelude.source, in: context) {
            throw PACScriptError(message: "the PAC helpers did not compile: \(failure)")
        }
        if let failure = Self.evaluate(source, in: context) {
            throw PACScriptError(message: failure)
        }
        duk_get_global_string(context, "FindProxyForURL")
        let isFunction = duk_is_function(context, -1) != 0
        duk_pop(context)
        if !isFunction { throw PACScriptError(message: "it defines no function FindProxyForURL(url, host)") }
    }

    deinit {
        duk_destroy_heap(context)
    }

    /// `FindProxyForURL(url, host)`'s answer, and what the script passed to `alert` meanwhile
    /// (to be logged by the caller, outside the lock).
    func findProxy(url: String, host: String) -> (answer: Result<String, PACScriptError>, alerts: String) {
        mutex.guarding(visibleToTSanAs: self) {
            let answer = call("FindProxyForURL", url, host)
            let alerts = (try? call("__pacTakeAlerts").get()) ?? ""
            return (answer, alerts)
        }
    }

    /// Evaluates `expression` in the script's heap and returns its value as a string (tests
    /// use it to run the helpers and to fix the date the time helpers see).
    func evaluate(_ expression: String) -> Result<String, PACScriptError> {
        mutex.guarding(visibleToTSanAs: self) {
            if let failure = Self.evaluate(expression, in: context, keepsResult: true) {
                return .failure(PACScriptError(message: failure))
            }
            defer { duk_pop(context) }
            return .success(Self.text(at: -1, in: context))
        }
    }

    /// Calls the global function `name` with string arguments; a string result or a failure.
    /// Under `mutex`.
    private func call(_ name: String, _ arguments: String...) -> Result<String, PACScriptError> {
        let top = duk_get_top(context)
        defer { duk_set_top(context, top) }
        duk_get_global_string(context, name)
        for argument in arguments { duk_push_string(context, argument) }
        guard duk_pcall(context, Int32(arguments.count)) == 0 else {
            return .failure(PACScriptError(message: "\(name) threw \(Self.text(at: -1, in: context))"))
        }
        guard duk_is_string(context, -1) != 0 else {
            let shown = Self.text(at: -1, in: context)
            return .failure(PACScriptError(message: "\(name) returned \(shown), which is not a string"))
        }
        return .success(Self.text(at: -1, in: context))
    }

    /// Runs `source`; nil when it ran, else the error's text ("SyntaxError: … (line 3)"). Leaves
    /// the value on the stack only when `keepsResult` and it ran.
    private static func evaluate(_ source: String, in context: OpaquePointer, keepsResult: Bool = false) -> String? {
        var bytes = Array(source.utf8)
        bytes.append(0)
        let failed = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                cduk_peval_lstring(context, $0, duk_size_t(buffer.count - 1)) != 0
            }
        }
        if failed {
            defer { duk_pop(context) }
            return text(at: -1, in: context)
        }
        if !keepsResult { duk_pop(context) }
        return nil
    }

    /// The value at `index` as text, whatever it is (`duk_safe_to_lstring` converts in place
    /// and cannot throw).
    private static func text(at index: Int32, in context: OpaquePointer) -> String {
        guard let pointer = duk_safe_to_lstring(context, index, nil) else { return "" }
        return String(cString: pointer)
    }
}
