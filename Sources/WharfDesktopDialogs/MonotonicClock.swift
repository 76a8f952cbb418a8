#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Elapsed time for timeouts that must survive wall-clock changes.
enum MonotonicClock {
    static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000
    }
}

/// Sleeping on a thread of the module's own (never a caller's).
enum Timer {
    static func sleep(milliseconds: Int) {
        let lock = ConditionLock()
        let deadline = Deadline(secondsFromNow: Double(milliseconds) / 1000)
        lock.withLock { while !deadline.hasPassed { lock.wait(until: deadline) } }
    }
}

import WharfSystem
