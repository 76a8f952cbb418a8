import Glibc
import Testing
import WharfSystem

/// Waiting on a condition by a deadline, and starting programs (WharfSystem's Lock and Spawn).
@Suite struct SpawnAndWait {
    @Test func aDeadlineHasPassedOnlyOnceItsTimeHasCome() {
        let deadline = Deadline(secondsFromNow: 0.2)
        #expect(!deadline.hasPassed)
        usleep(250_000)
        #expect(deadline.hasPassed)
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

    @Test func aSpawnedProgramSeesOnlyItsStandardStreams() throws {
        // Pipes this process holds are close-on-exec: the child lists its descriptors and finds
        // 0, 1 and 2 (and the one `ls` opens to read the list), not ours.
        let held = try makePipe()
        defer { close(held.read); close(held.write) }
        let output = try makePipe()
        let pid = try Spawn.start("/bin/ls", ["/proc/self/fd"]) { actions in
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        }
        close(output.write)
        let listed = String(decoding: Spawn.readToEnd(output.read), as: UTF8.self).split(separator: "\n")
        close(output.read)
        #expect(Spawn.wait(pid) == 0)
        #expect(!listed.contains(Substring(String(held.read))))
        #expect(!listed.contains(Substring(String(held.write))))
        #expect(["0", "1", "2"].allSatisfy { listed.contains($0) })
    }

    @Test func exitCodesAreTheProgramsOrOneHundredTwentyEightPlusTheSignal() throws {
        let exited = try Spawn.start("/bin/sh", ["-c", "exit 7"]) { _ in }
        #expect(Spawn.wait(exited) == 7)
        let killed = try Spawn.start("/bin/sh", ["-c", "kill -9 $$"]) { _ in }
        #expect(Spawn.wait(killed) == 128 + SIGKILL)
    }

    @Test func theEnvironmentIsOursWithAdditions() throws {
        let output = try makePipe()
        let pid = try Spawn.start("/bin/sh", ["-c", "echo \"$WHARF_SPAWN_TEST:$HOME\""],
                                  environment: ["WHARF_SPAWN_TEST": "added"]) { actions in
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        }
        close(output.write)
        let printed = String(decoding: Spawn.readToEnd(output.read), as: UTF8.self)
        close(output.read)
        #expect(Spawn.wait(pid) == 0)
        let home = getenv("HOME").map { String(cString: $0) } ?? ""
        #expect(printed == "added:\(home)\n")
    }
}
