/// How far along a bar is: one ratio that both its fill and its percent come from, so the two
/// always agree with each other and with the bytes printed beside them.
///
/// Complete (100%, a full bar) only when `done == total` and no request is still outstanding:
/// a queue whose total grows as responses arrive is not done while requests wait.
struct Completion: Equatable {
    /// Units done: bytes, or millionths for a fraction.
    var done: Int64
    /// Units to do; 0 when unknown.
    var total: Int64
    var isComplete: Bool

    /// From a byte snapshot: the bytes done and the bytes expected, read together.
    init(done: Int64, total: Int64, outstanding: Bool) {
        self.done = done
        self.total = total
        isComplete = total > 0 && done == total && !outstanding
    }

    /// From a fraction 0…1 (simple progress, or bytes with no total yet).
    init(fraction: Double, outstanding: Bool) {
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        total = Self.fractionUnits
        done = clamped >= 1 ? total : Int64((clamped * Double(total)).rounded(.down))
        isComplete = done == total && !outstanding
    }

    /// A fraction's resolution: fine enough for any bar, coarse enough to stay exact.
    static let fractionUnits: Int64 = 1_000_000

    /// 0…100, computed in integers (29 of 100 is 29%, not 28.999…); 100 only when complete.
    var percent: Int {
        if isComplete { return 100 }
        guard total > 0 else { return 0 }
        return Int(min(99, max(0, done * 100 / total)))
    }

    /// The cells of a bar `width` cells wide to fill: all of them only when complete.
    func filled(of width: Int) -> Int {
        if isComplete { return width }
        guard total > 0, width > 0 else { return 0 }
        return Int(min(Int64(width - 1), max(0, done * Int64(width) / total)))
    }

    /// Units left, when there is a known total and something left to do.
    var remaining: Int64? {
        guard total > 0, !isComplete, total > done else { return nil }
        return total - done
    }
}
