import Glibc
import Testing
import WharfSystem

/// Sleeping on several descriptors, and waking a thread that sleeps (Poller, WakeupPipe).
@Suite struct Polling {
    @Test func aWakeFromAnotherThreadEndsAWaitWithNoTimeLimit() throws {
        let wakeup = try WakeupPipe()
        let woken = OneShot<[Poller.Events]>()
        startThread {
            woken.set((try? Poller.wait([wakeup.watch], timeoutMilliseconds: nil)) ?? [])
        }
        usleep(50_000)
        #expect(woken.wait(until: Deadline(secondsFromNow: 0)) == nil, "asleep until woken")
        wakeup.wake()
        let events = woken.wait(until: Deadline(secondsFromNow: 10))
        #expect(events == [.readable])
    }

    @Test func aWakeBeforeTheWaitIsNotLostAndDrainingRearmsIt() throws {
        let wakeup = try WakeupPipe()
        wakeup.wake()
        #expect(try Poller.wait([wakeup.watch], timeoutMilliseconds: 0) == [.readable])
        wakeup.drain()
        #expect(try Poller.wait([wakeup.watch], timeoutMilliseconds: 30) == [[]], "nothing until the next wake")
    }

    @Test func wakingNeverBlocksEvenWhenThePipeIsFull() throws {
        let wakeup = try WakeupPipe()
        // More wakes than a pipe holds bytes (64 KiB by default): a blocking write would hang here.
        for _ in 0..<70_000 { wakeup.wake() }
        wakeup.drain()
        #expect(try Poller.wait([wakeup.watch], timeoutMilliseconds: 0) == [[]])
    }

    @Test func eachWatchSaysWhatHappenedToIt() throws {
        let quiet = try FileDescriptor.pipe(), busy = try FileDescriptor.pipe(), closed = try FileDescriptor.pipe()
        try busy.write.write(all: [1, 2, 3])
        closed.write.close()
        let events = try Poller.wait([Poller.Watch(quiet.read), Poller.Watch(busy.read), Poller.Watch(closed.read),
                                      Poller.Watch(quiet.write, for: .writable)], timeoutMilliseconds: 1000)
        #expect(events[0].isEmpty)
        #expect(events[1] == .readable)
        #expect(events[2].contains(.hangUp))
        #expect(events[3] == .writable)
    }

    @Test func pipesAreCloseOnExecFromTheStartAndNonBlockingWhenAsked() throws {
        let plain = try FileDescriptor.pipe(), quick = try FileDescriptor.pipe(nonBlocking: true)
        for end in [plain.read, plain.write, quick.read, quick.write] {
            #expect(fcntl(end.raw, F_GETFD) & FD_CLOEXEC != 0)
        }
        #expect(fcntl(plain.read.raw, F_GETFL) & O_NONBLOCK == 0)
        #expect(fcntl(quick.read.raw, F_GETFL) & O_NONBLOCK != 0 && fcntl(quick.write.raw, F_GETFL) & O_NONBLOCK != 0)
    }
}
