import WharfSystem


/// Time, for the engine and the script presenter: timeouts, scripted delays, the progress rate.
///
/// Injectable so that tests of timeouts and races decide exactly when time passes
/// (the tests' manual clock) instead of sleeping and hoping.
public protocol DialogScheduler: Sendable {
    /// Runs `work` once, `milliseconds` from now, on some thread other than the caller's, and
    /// answers what cancels it (the engine cancels a dialog's timeout when the dialog ends).
    /// Must not run `work` synchronously inside this call: callers may hold locks.
    @discardableResult
    func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void
    /// A monotonic clock, in seconds.
    var now: Double { get }
}

/// The real clock: ``TimerQueue`` (no thread ever sleeps per timer) and `CLOCK_MONOTONIC`.
public struct TimerScheduler: DialogScheduler {
    private let timers: TimerQueue

    public init(timers: TimerQueue = .shared) {
        self.timers = timers
    }

    @discardableResult
    public func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        timers.after(milliseconds: milliseconds, work)
    }

    public var now: Double { Double(monotonicNanoseconds()) / 1_000_000_000 }
}
