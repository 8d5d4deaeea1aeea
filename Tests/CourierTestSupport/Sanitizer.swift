import Foundation

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer, and what its
/// children then need.
public enum Sanitizer {
    /// True when the TSan or ASan runtime is in this process (`swift test --sanitize=...`), or when
    /// scripts/sanitize.sh says so through `COURIER_SANITIZER`.
    public static let isActive: Bool = {
        if ProcessInfo.processInfo.environment["COURIER_SANITIZER"] != nil { return true }
        guard let handle = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(handle) }
        return dlsym(handle, "__tsan_init") != nil || dlsym(handle, "__asan_init") != nil
    }()

    /// `environment` for a child process: under a sanitizer, with the Swift backtracer off. A
    /// child that crashes under TSan otherwise starts `swift-backtrace`, which can stay alive
    /// holding the child's output open, so the test waits forever (linux.md §8); the sanitizer
    /// prints its own report anyway. Outside a sanitizer children keep the backtracer, whose
    /// backtrace is what a crash in a normal run should show.
    public static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        guard isActive else { return environment }
        return environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
    }
}
