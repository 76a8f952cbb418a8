import Testing
import WharfSystem

/// `Locked`: one holder at a time, and each holder sees what the one before it wrote.
@Suite struct LockedValue {
    /// A plain class, so that its field is ordinary memory: only the lock orders the threads'
    /// accesses to it.
    final class Tally { var count = 0 }

    /// Threads that contend for the lock lose no increment. Under `make test-tsan` this is also
    /// the check that the sanitizer sees the lock handed over: the standard library's `Mutex`
    /// hands a contended lock over in the kernel, out of its sight, and without `Locked`'s
    /// hand-over atomic it reports these increments as a race.
    @Test func contendingThreadsLoseNoIncrement() {
        let threads = 4, increments = 20_000
        let tally = Locked(Tally())
        let finished = WaitableValue(0)
        for _ in 0..<threads {
            startThread {
                for _ in 0..<increments { tally.withValue { $0.count += 1 } }
                finished.change { $0 += 1 }
            }
        }
        #expect(finished.wait(until: Deadline(secondsFromNow: 60), for: { $0 == threads ? true : nil }) == true)
        #expect(tally.withValue { $0.count } == threads * increments)
    }
}
