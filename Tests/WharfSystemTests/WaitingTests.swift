import Glibc
import Testing
import WharfSystem

/// Waiting on a condition by a deadline, and for a value another thread sets (WharfSystem's Lock).
@Suite struct Waiting {
    @Test func aDeadlineHasPassedOnlyOnceItsTimeHasCome() {
        let deadline = Deadline(secondsFromNow: 0.2)
        #expect(!deadline.hasPassed)
        #expect((100...200).contains(deadline.millisecondsLeft))
        usleep(250_000)
        #expect(deadline.hasPassed)
        #expect(deadline.millisecondsLeft == 0)
    }

    @Test func waitingUntilADeadlineEndsAtItOrAtASignal() {
        let lock = ConditionLock()
        // Nobody signals: the wait ends when the time runs out, and says so.
        #expect(lock.withLock { lock.wait(until: Deadline(secondsFromNow: 0.05)) } == false)
        // A signal ends it early.
        let waiting = Locked(false)
        startThread {
            while !waiting.withValue({ $0 }) { usleep(1_000) }
            lock.withLock { lock.broadcast() }
        }
        let signalled = lock.withLock { () -> Bool in
            waiting.withValue { $0 = true }
            return lock.wait(until: Deadline(secondsFromNow: 30))
        }
        #expect(signalled)
    }

    @Test func aOneShotGivesEveryWaiterTheFirstValueSet() {
        let answer = OneShot<Int>()
        #expect(answer.wait(until: Deadline(secondsFromNow: 0.02)) == nil)
        startThread {
            usleep(20_000)
            answer.set(1)
            answer.set(2)
        }
        #expect(answer.wait() == 1)
        #expect(answer.wait(until: Deadline(secondsFromNow: 0)) == 1)
    }
}
