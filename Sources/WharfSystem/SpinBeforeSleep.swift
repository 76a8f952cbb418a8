import CProcessSpawn
import Glibc
import Synchronization

/// A place where a thread about to sleep looks a little longer for its next piece of work
/// first: a connection's read loop before `poll` blocks, a worker before it waits for work.
///
/// Why: a thread asleep is woken by the kernel, and where Wharf runs in a virtual machine
/// whose idle processors halt at once (`haltpoll` with `guest_halt_poll_ns` 0, as on the
/// machines its benchmarks run on), that wake-up is an interrupt to a halted virtual processor:
/// most of a round trip, and twice per request once a worker answers it. A client that asks
/// one thing at a time sends its next request just after reading an answer, so the thread that
/// would sleep looks for it a little longer instead (`poll` with no wait, or a counter), and the
/// next request is taken without a wake-up. What it saves: bench/notes/30 and 40.
///
/// What it costs, and its bounds: only a thread that has just had work spins, for at most
/// ``microseconds`` (100 by default), so an idle server spends nothing; between looks it
/// yields the processor (`sched_yield`), so any thread with work to do runs first; one thread
/// at a time spins at each place (the others sleep at once), so a daemon with a thousand
/// connections spends at most one read loop's looking; and on one processor nothing spins,
/// because the peer could not run meanwhile. `--spin-microseconds 0` turns it off.
public final class SpinBeforeSleep: Sendable {
    /// How long a thread looks before sleeping, in microseconds, for the whole process; 0
    /// turns spinning off. The server sets it from `--spin-microseconds` before serving.
    public static var microseconds: Int {
        get { budget.load(ordering: .relaxed) }
        set { budget.store(max(newValue, 0), ordering: .relaxed) }
    }

    /// 100 µs where the process may run on more than one processor, else 0: long enough to
    /// cover a client reading an answer and writing its next request, short enough that the
    /// looking after a client's last message is nothing beside the message's own work.
    public static let defaultMicroseconds = processorsAvailable() > 1 ? 100 : 0

    private static let budget = Atomic<Int>(defaultMicroseconds)

    /// Whether a thread spins here now.
    private let taken = Atomic<Bool>(false)
    /// This place's own time, when it has one (tests); else ``microseconds``.
    private let ownMicroseconds: Int?

    /// - Parameter microseconds: how long to spin here; nil (the servers' places) follows the
    ///   process-wide ``microseconds``.
    public init(microseconds: Int? = nil) {
        ownMicroseconds = microseconds
    }

    /// Asks `ready` again and again, yielding the processor between asks, until it answers
    /// true (returns true) or the spin's time has passed (returns false: sleep now). When
    /// another thread already spins here, or spinning is off, returns false without asking.
    public func spin(until ready: () -> Bool) -> Bool {
        let budget = ownMicroseconds ?? Self.microseconds
        guard budget > 0, taken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return false
        }
        defer { taken.store(false, ordering: .releasing) }
        let end = monotonicNanoseconds() + UInt64(budget) * 1000
        repeat {
            if ready() { return true }
            sched_yield()
        } while monotonicNanoseconds() < end
        return ready()
    }

    /// How many processors this process may run on (its affinity mask), at least 1.
    public static func processorsAvailable() -> Int { max(Int(wharf_processors_available()), 1) }
}
