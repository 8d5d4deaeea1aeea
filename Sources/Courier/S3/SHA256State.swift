import CCrypto

/// A SHA-256 part way through, set up once and then continued from as many times as wanted: the
/// start of every one-shot digest (`Digests.emptySHA256`) and an HMAC key's two padded blocks
/// already absorbed (`HMACSHA256Key`).
///
/// Each `finish` works on a copy of the context (`EVP_MD_CTX_copy_ex`), which carries the
/// algorithm OpenSSL 3 already looked up; setting a context up afresh (`EVP_DigestInit_ex`, and
/// `HMAC()`, which also does it for its key) looks it up again by name each time.
///
/// `@unchecked Sendable`: the context is written only in `init`, before the state is shared;
/// after that it is only ever the source of `EVP_MD_CTX_copy_ex`, which takes it `const`, and
/// OpenSSL lets many threads use an object at once when none changes it (openssl-threads(7)).
final class SHA256State: @unchecked Sendable {
    private let context: OpaquePointer

    /// SHA-256 with nothing absorbed: `Digests.emptySHA256`, which every other state continues.
    init() {
        // These fail only when libcrypto cannot allocate or has no SHA-256: a state that silently
        // hashed nothing would sign requests the service rejects with no hint why.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest") }
        self.context = context
        let started = EVP_DigestInit_ex(context, EVP_sha256(), nil)
        precondition(started == 1, "libcrypto could not start a SHA-256")
    }

    /// `state` continued with `bytes` absorbed; `state` itself is left as it was.
    init(continuing state: SHA256State, absorbing bytes: UnsafeRawBufferPointer) {
        context = state.copiedContext()
        Self.absorb(bytes, into: context)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Writes the digest of this state's input followed by `bytes` to `digest`'s first
    /// `Digests.sha256Length` bytes; the state itself is left as it was.
    func finish(appending bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableBufferPointer<UInt8>) {
        precondition(digest.count >= Digests.sha256Length, "no room for a SHA-256")
        let copy = copiedContext()
        defer { EVP_MD_CTX_free(copy) }
        Self.absorb(bytes, into: copy)
        var length: UInt32 = 0
        let finished = EVP_DigestFinal_ex(copy, digest.baseAddress, &length)
        precondition(finished == 1 && length == UInt32(Digests.sha256Length), "libcrypto could not hash")
    }

    /// A new context where this one is, which the caller owns.
    private func copiedContext() -> OpaquePointer {
        guard let copy = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest") }
        // Each call stays out of its precondition, whose condition -Ounchecked never evaluates.
        let copied = EVP_MD_CTX_copy_ex(copy, context)
        precondition(copied == 1, "libcrypto could not copy a digest")
        return copy
    }

    private static func absorb(_ bytes: UnsafeRawBufferPointer, into context: OpaquePointer) {
        guard !bytes.isEmpty else { return }
        let absorbed = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
        precondition(absorbed == 1, "libcrypto could not hash")
    }
}
