import Glibc

/// A moment on the monotonic clock (the one `ConditionLock` waits by).
public struct Deadline: Sendable {
    let time: timespec

    public init(secondsFromNow seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(max(seconds, 0) * 1_000_000_000)
        time = timespec(tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    }

    /// Whole milliseconds until the deadline (rounded up), 0 once it has passed: a timeout
    /// for a call that takes one (`poll`).
    public var millisecondsLeft: Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let left = (Int(time.tv_sec) - Int(now.tv_sec)) * 1_000_000_000 + (Int(time.tv_nsec) - Int(now.tv_nsec))
        return left <= 0 ? 0 : (left + 999_999) / 1_000_000
    }

    public var hasPassed: Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec > time.tv_sec || (now.tv_sec == time.tv_sec && now.tv_nsec >= time.tv_nsec)
    }
}

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`): for measuring durations and
/// pacing, never for telling the time.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
