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
/// (``ManualScheduler``) instead of sleeping and hoping.
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

/// A clock that moves only when told to: work scheduled with ``after(milliseconds:_:)`` runs
/// when ``advance(milliseconds:)`` passes its deadline, in deadline order (then scheduling
/// order), on the thread that advances.
public final class ManualScheduler: DialogScheduler {
    private struct Pending {
        var deadline: Int
        var sequence: Int
        var work: @Sendable () -> Void
    }

    private struct State {
        var nowMilliseconds = 0
        var sequence = 0
        var pending: [Pending] = []
    }

    private let state = Locked(State())

    public init() {}

    public func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        state.withValue { state in
            state.sequence += 1
            state.pending.append(Pending(
                deadline: state.nowMilliseconds + max(0, milliseconds), sequence: state.sequence, work: work))
        }
    }

    public var now: Double { state.withValue { Double($0.nowMilliseconds) / 1000 } }

    /// How many pieces of work are waiting for their time.
    public var pendingCount: Int { state.withValue { $0.pending.count } }

    /// Moves the clock forward, running everything that falls due, including work scheduled by
    /// that work, until nothing more is due. Work runs without the scheduler's lock held.
    public func advance(milliseconds: Int = 0) {
        let target = state.withValue { $0.nowMilliseconds + max(0, milliseconds) }
        while let next = takeNextDue(before: target) {
            next()
        }
        state.withValue { $0.nowMilliseconds = max($0.nowMilliseconds, target) }
    }

    private func takeNextDue(before target: Int) -> (@Sendable () -> Void)? {
        state.withValue { state in
            guard let index = state.pending.indices.min(by: {
                (state.pending[$0].deadline, state.pending[$0].sequence)
                    < (state.pending[$1].deadline, state.pending[$1].sequence)
            }), state.pending[index].deadline <= target else { return nil }
            let due = state.pending.remove(at: index)
            state.nowMilliseconds = max(state.nowMilliseconds, due.deadline)
            return due.work
        }
    }
}
