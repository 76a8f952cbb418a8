import Dispatch
import WharfSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Time, for the engine and the script presenter: timeouts, scripted delays, the progress rate.
///
/// Injectable so that tests of timeouts and races decide exactly when time passes
/// (the tests' manual clock) instead of sleeping and hoping.
public protocol DialogScheduler: Sendable {
    /// Runs `work` once, `milliseconds` from now, on some thread other than the caller's.
    /// Must not run `work` synchronously inside this call: callers may hold locks.
    func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void)
    /// A monotonic clock, in seconds.
    var now: Double { get }
}

/// The real clock: `DispatchQueue.global().asyncAfter` (no thread ever sleeps) and
/// `CLOCK_MONOTONIC`.
public struct DispatchScheduler: DialogScheduler {
    public init() {}

    public func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        // "Now" skips Dispatch's timer machinery (a timer-thread hop per script step).
        guard milliseconds > 0 else { return DispatchQueue.global().async(execute: work) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds), execute: work)
    }

    public var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
