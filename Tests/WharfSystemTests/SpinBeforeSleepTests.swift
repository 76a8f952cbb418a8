import Glibc
import Testing
import WharfSystem

/// Looking for work a moment before sleeping: it stops as soon as there is work, gives up when
/// its time is up, and only one thread at a time does it at one place.
@Suite struct SpinningBeforeSleeping {
    @Test func stopsAsSoonAsThereIsWork() {
        let spin = SpinBeforeSleep(microseconds: 1_000_000)
        var asked = 0
        #expect(spin.spin { asked += 1; return asked == 5 })
        #expect(asked == 5)
    }

    @Test func givesUpWhenItsTimeIsUp() {
        let spin = SpinBeforeSleep(microseconds: 2000)
        var asked = 0
        let start = monotonicNanoseconds()
        #expect(!spin.spin { asked += 1; return false })
        #expect(monotonicNanoseconds() - start >= 2_000_000)
        #expect(asked >= 2)
    }

    @Test func offItAsksNothing() {
        var asked = false
        #expect(!SpinBeforeSleep(microseconds: 0).spin { asked = true; return true })
        #expect(!asked)
    }

    /// A second thread arriving while one spins sleeps at once: a daemon's thousand read loops
    /// must not all spin together.
    @Test func oneThreadAtATimeSpinsAtOnePlace() {
        let spin = SpinBeforeSleep(microseconds: 30_000_000)
        let spinning = OneShot<Void>()
        let secondDone = OneShot<Void>()
        let first = OneShot<Bool>()
        startThread {
            first.set(spin.spin {
                spinning.set(())
                return secondDone.wait(until: Deadline(secondsFromNow: 0)) != nil
            })
        }
        #expect(spinning.wait(until: Deadline(secondsFromNow: 10)) != nil)
        var asked = false
        #expect(!spin.spin { asked = true; return true })
        #expect(!asked)
        secondDone.set(())
        #expect(first.wait(until: Deadline(secondsFromNow: 10)) == true)
        // Free again once the first is done.
        #expect(spin.spin { true })
    }

    @Test func countsTheProcessorsThisProcessMayUse() {
        let count = SpinBeforeSleep.processorsAvailable()
        #expect(count >= 1 && count <= Int(sysconf(Int32(_SC_NPROCESSORS_CONF))))
        #expect(SpinBeforeSleep.defaultMicroseconds == (count > 1 ? 100 : 0))
    }

    /// Work given to a pool whose idle thread spins is taken without a signal; work given just
    /// as the spin gives up, or after its thread fell asleep, must still wake it (else it would
    /// wait for the thread's idle timeout, 30 s here). Given at delays around the spin's end.
    @Test func aSpinningPoolLosesNoWorkAroundTheEndOfItsSpin() {
        let pool = WorkerPool(maximumThreads: 4, idleSeconds: 30, spin: SpinBeforeSleep(microseconds: 200))
        for round in 0..<300 {
            let done = OneShot<Void>()
            pool.run { done.set(()) }
            #expect(done.wait(until: Deadline(secondsFromNow: 5)) != nil, "round \(round): the work was not taken")
            let pause = UInt64(round % 30) * 15_000
            let start = monotonicNanoseconds()
            while monotonicNanoseconds() - start < pause {}
        }
    }
}
