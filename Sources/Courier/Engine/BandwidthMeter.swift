import Synchronization

/// The bytes all transfers move, up and down, and their average per second over the last few
/// seconds: ASI's `averageBandwidthUsedPerSecond`.
///
/// The engine thread counts bytes as they move (`record`, for every chunk: a relaxed load and
/// store of a counter only it writes, no lock) and closes each whole second (`roll`, at most
/// once a second, under the lock). A reader on any thread works the average out from the closed
/// seconds, the second being counted and the time now, because the engine sleeps while nothing
/// runs: a figure the engine alone kept would stay as it was when traffic stopped.
///
/// ASI's rule for quiet spells: a whole second in which nothing moved clears the history. So the
/// average is 0 a whole second after traffic stops, and once traffic starts again it counts only
/// the seconds since.
final class BandwidthMeter: Sendable {
    /// How many whole seconds the average covers (ASI: five).
    static let window = 5
    private static let second: UInt64 = 1_000_000_000

    private struct History {
        /// The bytes of each closed second since the last quiet one, oldest first.
        var seconds: [Int64] = []
        /// When the second being counted began (monotonic nanoseconds); 0 before the first roll.
        var secondStarted: UInt64 = 0

        mutating func close(_ bytes: Int64, quietSecondsAfter quiet: UInt64) {
            guard bytes > 0, quiet == 0 else {
                seconds.removeAll(keepingCapacity: true)
                return
            }
            if seconds.count == BandwidthMeter.window { seconds.removeFirst() }
            seconds.append(bytes)
        }
    }

    private let history = Locked(History())
    /// Bytes moved in the second being counted. Written by the engine thread only.
    private let current = Atomic<Int64>(0)
    /// When the engine thread must next close a second. Engine thread only (an atomic because
    /// the meter is shared with readers).
    private let nextRoll = Atomic<UInt64>(0)

    /// Counts bytes that moved. Engine thread.
    @inline(__always)
    func record(_ bytes: Int) {
        current.store(current.load(ordering: .relaxed) &+ Int64(bytes), ordering: .relaxed)
    }

    /// Closes the seconds that have ended. Engine thread, once per loop; cheap until a second
    /// has passed.
    func roll(now: UInt64) {
        guard now >= nextRoll.load(ordering: .relaxed) else { return }
        history.withLock { history in
            if history.secondStarted == 0 {
                history.secondStarted = now
            } else {
                let elapsed = (now &- history.secondStarted) / Self.second
                history.close(current.load(ordering: .relaxed), quietSecondsAfter: elapsed - 1)
                current.store(0, ordering: .relaxed)
                history.secondStarted += elapsed * Self.second
            }
            nextRoll.store(history.secondStarted + Self.second, ordering: .relaxed)
        }
    }

    /// Bytes per second over the closed seconds since the last quiet one, at most `window` of
    /// them. Any thread.
    func averagePerSecond(now: UInt64) -> Int64 {
        history.withLock { history in
            guard history.secondStarted != 0, now > history.secondStarted else { return 0 }
            let elapsed = (now - history.secondStarted) / Self.second
            guard elapsed > 0 else { return Self.mean(history.seconds[...], plus: nil) }
            // The second being counted has ended and the engine has not closed it yet (it may be
            // asleep, with nothing running): close it here, for this answer only.
            let bytes = current.load(ordering: .relaxed)
            // More than a second since: the engine slept through a whole quiet second.
            guard bytes > 0, elapsed == 1 else { return 0 }
            return Self.mean(history.seconds.suffix(Self.window - 1), plus: bytes)
        }
    }

    private static func mean(_ seconds: ArraySlice<Int64>, plus last: Int64?) -> Int64 {
        let count = seconds.count + (last == nil ? 0 : 1)
        guard count > 0 else { return 0 }
        return (seconds.reduce(0, +) + (last ?? 0)) / Int64(count)
    }
}
