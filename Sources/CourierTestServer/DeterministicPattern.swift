/// The byte pattern behind ``Route/bytes(_:)`` and ``Route/chunked(_:)``: byte `i` is
/// `UInt8(i % 251)`.
///
/// 251 is prime, so the pattern does not line up with any power-of-two buffer size
/// and a client that drops, repeats or reorders a block produces a detectable mismatch.
enum DeterministicPattern {
    /// The pattern's period.
    static let period = 251
    /// The largest span handed out at once (256 KiB).
    static let blockSize = 256 * 1024

    /// `blockSize + period` bytes of the pattern starting at 0: any span of up to
    /// `blockSize` bytes at any offset is a contiguous slice of it.
    private static let block: [UInt8] = (0..<(blockSize + period)).map { UInt8($0 % period) }

    /// Calls `body` with the pattern bytes `offset..<offset+count`, without copying.
    /// - Precondition: `offset >= 0` and `0 <= count <= blockSize`.
    static func withBytes<Result>(
        offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        precondition(offset >= 0 && count >= 0 && count <= blockSize, "pattern span out of range")
        let start = offset % period
        return try block.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
    }
}
