import Glibc
import Testing
import WharfSystem
import WharfTestSupport

/// Reading `/proc/<pid>/stat` (WharfSystem's ProcessStat), which says whether a process still
/// runs (orphaned access rows) and whether it has gone idle (tests that flood a server).
@Suite struct ProcessStats {
    @Test func aProgramWhoseNameHoldsParenthesesIsReadFromItsLastOne() throws {
        // Counted from the first `)`, this name's `Z` would read as the state: a zombie.
        let scratch = ScratchDirectory()
        let program = scratch.write("a) Z (b", try #require(readFile("/bin/sleep")), mode: 0o755)
        let child = try Subprocess.spawn(program.bytes, arguments: [Array("30".utf8)])
        defer { child.signal(SIGKILL); child.wait() }
        let running = try #require(ProcessStat.read(child.pid))
        #expect(running.state != UInt8(ascii: "Z"))
        #expect(running.startTime > 0 && running.startTime == ProcessIdentity.startTime(of: child.pid))

        child.signal(SIGKILL)
        let deadline = Deadline(secondsFromNow: 10)
        while ProcessStat.read(child.pid)?.state != UInt8(ascii: "Z") && !deadline.hasPassed { usleep(5_000) }
        #expect(ProcessStat.read(child.pid)?.state == UInt8(ascii: "Z"), "killed and not yet waited for: a zombie")
        #expect(ProcessStat.read(child.pid)?.startTime == running.startTime)
    }

    @Test func cpuTimeCountsWhatTheProcessSpent() throws {
        let before = try #require(ProcessStat.read(getpid())).cpuTicks
        // A quarter of a second of CPU is 25 ticks at the usual 100 a second.
        let started = clock()
        var spin: UInt64 = 0
        while clock() - started < CLOCKS_PER_SEC / 4 { spin &+= 1 }
        #expect(spin > 0)
        #expect(try #require(ProcessStat.read(getpid())).cpuTicks >= before + 10)
    }

    @Test func noSuchProcessReadsAsNothing() {
        #expect(ProcessStat.read(Int32.max) == nil)
    }
}
