#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfSystem
@testable import WharfFileWriting

/// A writer killed mid-write leaves no partial destination, only a temporary file that the next
/// sweep removes; the sweep never touches what a live writer is using, nor files that merely
/// look similar.
struct OrphanTests {
    @Test func writerKilledMidWriteLeavesNoPartialFileAndTheSweepRemovesItsTemporary() throws {
        let scratch = Scratch()
        put(patternBytes(16 << 20), at: scratch.at("source"))
        let destination = scratch.at("doc.bin")
        let probe = try ChildProcess(
            Probe.path, ["--hold", "--file", destination, scratch.at("source")], outputPath: scratch.at("probe.out")
        )
        // The probe stops at its first progress report: one 4 MiB chunk of 16 is written.
        let line = try #require(probe.waitForLine(startingWith: "holding "))
        let temporary = String(line.dropFirst("holding ".count))
        #expect(FilePath.directory(of: temporary) == scratch.path)
        #expect(try FileStatus.ofLink(temporary).size == 4 << 20)
        #expect(linkStatus(destination) == nil)

        // While the writer lives (and holds its lock), the sweep leaves its file alone.
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        #expect(linkStatus(temporary) != nil)

        #expect(kill(probe.pid, SIGKILL) == 0)
        #expect(probe.wait() == 128 + SIGKILL)
        #expect(linkStatus(destination) == nil)
        #expect(AtomicWriter.removeOrphans(in: scratch.path) == [temporary])
        #expect(scratch.names() == ["source", "probe.out"])
    }

    @Test func sweepRemovesOrphansOfEndedProcessesButNotOfLiveOnes() throws {
        let scratch = Scratch()
        let ended = try endedProcessID()
        let orphan = scratch.at(".wharf-tmp-\(ended)-00000000000000aa")
        let orphanLink = scratch.at(".wharf-tmp-\(ended)-00000000000000bb")
        let live = try ChildProcess("/bin/sleep", ["60"], outputPath: scratch.at("sleep.out"))
        defer { kill(live.pid, SIGKILL); live.wait() }
        let othersInUse = scratch.at(".wharf-tmp-\(live.pid)-00000000000000cc")
        put("partial", at: orphan)
        #expect(symlink("/etc/passwd", orphanLink) == 0)  // A replaced symlink kept for rollback.
        put("in progress", at: othersInUse)
        let removed = AtomicWriter.removeOrphans(in: scratch.path)
        #expect(Set(removed) == [orphan, orphanLink])
        #expect(scratch.names() == [FilePath.lastComponent(of: othersInUse), "sleep.out"])
        #expect(linkStatus("/etc/passwd") != nil)
    }

    @Test func sweepRemovesOurPidsFilesUnlessThisProcessClaimedThem() throws {
        // A server restarted in a fresh container often gets its old pid back: files with our
        // pid are ours only if an export in this process is using them.
        let scratch = Scratch()
        let earlierIncarnation = scratch.at(".wharf-tmp-\(getpid())-00000000000000dd")
        put("left by a crash", at: earlierIncarnation)
        let claimed = LiveTemporaries.claimNew()
        defer { LiveTemporaries.release([claimed]) }
        put("in use right now", at: scratch.at(claimed))
        #expect(AtomicWriter.removeOrphans(in: scratch.path) == [earlierIncarnation])
        #expect(scratch.names() == [claimed])
    }

    @Test func sweepDuringAnExportInThisProcessLeavesItsFilesAlone() throws {
        let scratch = Scratch()
        let destination = scratch.at("doc.bin")
        put("old", at: destination)
        let sweptMidway = Locked<[String]?>(nil)
        let directory = scratch.path
        try AtomicWriter.write(
            [ExportItem(destination: destination, source: .bytes(patternBytes(6 << 20)), overwrite: true)],
            progress: { _ in
                if sweptMidway.withValue({ $0 == nil }) {
                    let removed = AtomicWriter.removeOrphans(in: directory)
                    sweptMidway.withValue { $0 = removed }
                }
            }
        )
        #expect(sweptMidway.withValue { $0 } == [])
        #expect(contents(of: destination) == patternBytes(6 << 20))
        #expect(scratch.names() == ["doc.bin"])
    }

    @Test func sweepLeavesLockedTemporariesAlone() throws {
        // A writer in another pid namespace has a pid that means nothing here; its lock speaks.
        let scratch = Scratch()
        let name = scratch.at(".wharf-tmp-\(try endedProcessID())-00000000000000dd")
        put("being written", at: name)
        let holder = open(name, O_RDONLY | O_CLOEXEC)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        // (The sweep's own open file description conflicts with this one, as with another process's.)
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        close(holder)
        // A process another test is spawning at this moment may still hold a copy of the
        // descriptor (and so the lock) until its exec closes it: allow it a moment.
        var removed = AtomicWriter.removeOrphans(in: scratch.path)
        for _ in 0..<200 where removed.isEmpty {
            usleep(10_000)
            removed = AtomicWriter.removeOrphans(in: scratch.path)
        }
        #expect(removed == [name])
    }

    @Test func sweepIgnoresNamesThatOnlyLookLikeTemporaries() throws {
        let scratch = Scratch()
        let ended = try endedProcessID()
        let lookalikes = [
            ".wharf-tmp-notes.txt",
            ".wharf-tmp-\(ended)",
            ".wharf-tmp-\(ended)-00000000000000AA",  // Upper-case hex is not ours.
            ".wharf-tmp-\(ended)-0000000000000000.bak",
            ".wharf-tmp--0000000000000000",
            "wharf-tmp-\(ended)-0000000000000000",
        ]
        for name in lookalikes { put("user data", at: scratch.at(name)) }
        scratch.directory(".wharf-tmp-\(ended)-00000000000000ee")
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        #expect(scratch.names().count == lookalikes.count + 1)
    }

    @Test func sweepOfAMissingDirectoryRemovesNothing() {
        #expect(AtomicWriter.removeOrphans(in: "/nonexistent/wharf/dir").isEmpty)
    }

    @Test func temporaryNamesCarryThePidAndSixteenHexDigits() {
        let name = TemporaryName.make()
        #expect(TemporaryName.owner(of: name) == getpid())
        #expect(name.hasPrefix(AtomicWriter.temporaryPrefix + "\(getpid())-"))
        #expect(name.count == AtomicWriter.temporaryPrefix.count + "\(getpid())".count + 1 + 16)
        #expect(TemporaryName.make() != name)
    }

    /// The pid of a process that has ended (and been reaped).
    private func endedProcessID() throws -> pid_t {
        let scratch = Scratch()
        let child = try ChildProcess("/bin/true", [], outputPath: scratch.at("out"))
        child.wait()
        return child.pid
    }
}
