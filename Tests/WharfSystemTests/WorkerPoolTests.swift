import Glibc
import Testing
import WharfSystem

/// Wharf's own threads: a pool that runs work off the caller's thread, serial queues on it, and
/// timers that hand their work to the pool when it is due.
@Suite struct WorkerPoolAndTimers {
    @Test func everyPieceOfWorkRunsOnceOffTheCallersThread() {
        let pool = WorkerPool(maximumThreads: 3, idleSeconds: 0.2)
        let caller = ThreadIdentity.current
        let ran = Locked<[Int]>([])
        let done = OneShot<Void>()
        let count = 500
        for index in 0..<count {
            pool.run {
                #expect(!caller.isCurrent())
                if ran.withValue({ $0.append(index); return $0.count }) == count { done.set(()) }
            }
        }
        #expect(done.wait(until: Deadline(secondsFromNow: 30)) != nil)
        #expect(ran.withValue { $0.sorted() } == Array(0..<count))
        #expect(pool.threadCount <= 3)
    }

    /// Work handed over while threads sit idle gets a thread of its own whenever there is more
    /// work than idle threads, under the cap: two idle threads must not leave a burst of work
    /// queued behind the two pieces they take, which here wait until the last piece has run.
    @Test func aBurstGetsAThreadForEachPieceWhileUnderTheCap() {
        let pool = WorkerPool(maximumThreads: 64, idleSeconds: 30)
        // Two threads, then idle.
        let warmed = Locked(0)
        let bothStarted = OneShot<Void>()
        let release = OneShot<Void>()
        for _ in 0..<2 {
            pool.run {
                if warmed.withValue({ $0 += 1; return $0 }) == 2 { bothStarted.set(()) }
                _ = release.wait(until: Deadline(secondsFromNow: 30))
            }
        }
        #expect(bothStarted.wait(until: Deadline(secondsFromNow: 10)) != nil)
        release.set(())
        while pool.idleCount < 2 { ProcessControl.sleep(milliseconds: 1) }

        // A burst in which every piece waits until the last has started.
        let count = 20
        let started = Locked(0)
        let all = OneShot<Void>()
        for _ in 0..<count {
            pool.run {
                if started.withValue({ $0 += 1; return $0 }) == count { all.set(()) }
                _ = all.wait(until: Deadline(secondsFromNow: 10))
            }
        }
        #expect(all.wait(until: Deadline(secondsFromNow: 5)) != nil, "\(started.withValue { $0 }) of \(count) started")
    }

    /// A cancelled timer never runs, and cancelled timers do not stay until they are due: a
    /// client opening and cancelling dialogs with a day's `timeoutMs` kept every one of them
    /// (and what its work held) for that day.
    @Test func cancelledTimersNeverRunAndDoNotStayUntilDue() {
        let timers = TimerQueue(pool: WorkerPool(maximumThreads: 2))
        let ran = Locked(0)
        let cancels = (0..<1_000).map { _ in timers.after(milliseconds: 3_600_000) { ran.withValue { $0 += 1 } } }
        #expect(timers.pendingCount == 1_000)
        for cancel in cancels { cancel() }
        #expect(timers.pendingCount < 200, "\(timers.pendingCount) cancelled timers still held")
        // Due soon, but not so soon that a busy machine could run it before the cancel below.
        let soon = timers.after(milliseconds: 300) { ran.withValue { $0 += 1 } }
        soon()
        let done = OneShot<Void>()
        timers.after(milliseconds: 400) { done.set(()) }
        #expect(done.wait(until: Deadline(secondsFromNow: 10)) != nil)
        #expect(ran.withValue { $0 } == 0)
    }

    @Test func aSerialQueueRunsItsWorkInOrderOneAtATime() {
        let queue = SerialQueue(pool: WorkerPool(maximumThreads: 4))
        let order = Locked<[Int]>([])
        let inside = Locked(0)
        let done = OneShot<Void>()
        for index in 0..<300 {
            queue.run {
                #expect(inside.withValue { $0 += 1; return $0 } == 1, "two items ran at once")
                order.withValue { $0.append(index) }
                inside.withValue { $0 -= 1 }
                if index == 299 { done.set(()) }
            }
        }
        #expect(done.wait(until: Deadline(secondsFromNow: 30)) != nil)
        #expect(order.withValue { $0 } == Array(0..<300))
    }

    /// The timer thread sleeps until its earliest deadline; a timer added with an earlier one
    /// must wake it, or it would run only when the later one is due.
    @Test func aTimerEarlierThanThoseWaitingRunsAtItsOwnTime() {
        let timers = TimerQueue(pool: WorkerPool(maximumThreads: 2))
        let fired = Locked<[String]>([])
        let early = OneShot<UInt64>()
        let late = OneShot<Void>()
        let start = TimerQueue.now
        timers.after(milliseconds: 3_000) { fired.withValue { $0.append("late") }; late.set(()) }
        usleep(50_000)  // the timer thread is asleep until the late one's deadline
        timers.after(milliseconds: 20) { fired.withValue { $0.append("early") }; early.set(TimerQueue.now) }
        let earlyAt = early.wait(until: Deadline(secondsFromNow: 30))
        #expect(earlyAt != nil)
        #expect((earlyAt ?? .max) - start < 1_500_000_000, "the early timer waited for the late one")
        #expect(late.wait(until: Deadline(secondsFromNow: 30)) != nil)
        #expect(fired.withValue { $0 } == ["early", "late"])
    }

    @Test func timersRunInDeadlineOrderWhateverOrderTheyWereAddedIn() {
        let timers = TimerQueue(pool: WorkerPool(maximumThreads: 1))
        let fired = Locked<[Int]>([])
        let done = OneShot<Void>()
        for delay in [90, 30, 60, 10] {
            timers.after(milliseconds: delay) {
                if fired.withValue({ $0.append(delay); return $0.count }) == 4 { done.set(()) }
            }
        }
        #expect(done.wait(until: Deadline(secondsFromNow: 30)) != nil)
        #expect(fired.withValue { $0 } == [10, 30, 60, 90])
    }
}
