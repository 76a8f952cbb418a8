import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// A writer killed mid-write leaves no partial destination, only a temporary file that the next
/// sweep removes; the sweep never touches what a live writer is using, nor files that merely
/// look similar.
struct OrphanTests {
    @Test func writerKilledMidWriteLeavesNoPartialFileAndTheSweepRemovesItsTemporary() throws {
        let scratch = ScratchDirectory("wharf-fw")
        writeFile(scratch.path("source"), patternBytes(16 << 20))
        let destination = scratch.path("doc.bin")
        let probe = try ChildProcess(
            path: Probe.path, arguments: ["--hold", "--file", destination.description, scratch.path("source").description],
            mergeErrors: true)
        // The probe stops at its first progress report: one 4 MiB chunk of 16 is written.
        let line = try #require(probe.waitForLine(startingWith: "holding "))
        let temporary = try #require(FilePath(String(line.dropFirst("holding ".count))))
        #expect(temporary.directory == scratch.path)
        #expect(try FileStatus.ofLink(temporary).size == 4 << 20)
        #expect(linkStatus(destination) == nil)

        // While the writer lives (and holds its lock), the sweep leaves its file alone.
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        #expect(linkStatus(temporary) != nil)

        #expect(kill(probe.pid, SIGKILL) == 0)
        #expect(probe.wait() == 128 + SIGKILL)
        #expect(linkStatus(destination) == nil)
        #expect(AtomicWriter.removeOrphans(in: scratch.path) == [temporary])
        #expect(scratch.names() == ["source"])
    }

    @Test func sweepRemovesOrphansOfEndedProcessesButNotOfLiveOnes() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let ended = try endedProcessID()
        let orphan = scratch.path(".wharf-tmp-\(ended)-00000000000000aa")
        let orphanLink = scratch.path(".wharf-tmp-\(ended)-00000000000000bb")
        let live = try ChildProcess(path: "/bin/sleep", arguments: ["60"], mergeErrors: true)
        defer { kill(live.pid, SIGKILL); live.wait() }
        let othersInUse = scratch.path(".wharf-tmp-\(live.pid)-00000000000000cc")
        writeFile(orphan, "partial")
        makeSymlink("/etc/passwd", at: orphanLink)  // A replaced symlink kept for rollback.
        writeFile(othersInUse, "in progress")
        let removed = AtomicWriter.removeOrphans(in: scratch.path)
        #expect(Set(removed) == [orphan, orphanLink])
        #expect(scratch.names() == [String(decoding: othersInUse.lastComponent, as: UTF8.self)])
        #expect(linkStatus("/etc/passwd") != nil)
    }

    @Test func sweepNeverRemovesAUsersFileMovedAsideByAnEndedProcess() throws {
        // Without hard links, a replaced file is renamed aside, then the new one renamed into
        // place: a crash between the two leaves the aside name the only copy of the user's file.
        let scratch = ScratchDirectory("wharf-fw")
        let ended = try endedProcessID()
        let aside = try #require(FilePath(TemporaryName.makeAside()))
        let asideOfEnded = scratch.path(".wharf-tmp-aside-\(ended)-00000000000000ee")
        let orphan = scratch.path(".wharf-tmp-\(ended)-00000000000000ef")
        writeFile(asideOfEnded, "the user's only copy")
        writeFile(orphan, "partial")
        #expect(TemporaryName.owner(of: Array(aside.description.utf8)) == nil, "not an orphan's name")
        #expect(aside.description.hasPrefix(AtomicWriter.temporaryPrefix), "tests that check nothing is left behind see it")
        #expect(AtomicWriter.removeOrphans(in: scratch.path) == [orphan])
        #expect(scratch.names() == [String(decoding: asideOfEnded.lastComponent, as: UTF8.self)])
    }

    @Test func sweepRemovesOurPidsFilesUnlessThisProcessClaimedThem() throws {
        // A server restarted in a fresh container often gets its old pid back: files with our
        // pid are ours only if an export in this process is using them.
        let scratch = ScratchDirectory("wharf-fw")
        let earlierIncarnation = scratch.path(".wharf-tmp-\(getpid())-00000000000000dd")
        writeFile(earlierIncarnation, "left by a crash")
        let claimed = LiveTemporaries.claimNew()
        defer { LiveTemporaries.release([claimed]) }
        writeFile(scratch.path(claimed), "in use right now")
        #expect(AtomicWriter.removeOrphans(in: scratch.path) == [earlierIncarnation])
        #expect(scratch.names() == [claimed])
    }

    @Test func sweepDuringAnExportInThisProcessLeavesItsFilesAlone() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.bin")
        writeFile(destination, "old")
        let sweptMidway = Locked<[FilePath]?>(nil)
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
        #expect(readFile(destination) == patternBytes(6 << 20))
        #expect(scratch.names() == ["doc.bin"])
    }

    @Test func sweepLeavesLockedTemporariesAlone() throws {
        // A writer in another pid namespace has a pid that means nothing here; its lock speaks.
        let scratch = ScratchDirectory("wharf-fw")
        let name = scratch.path(".wharf-tmp-\(try endedProcessID())-00000000000000dd")
        writeFile(name, "being written")
        let holder = try FileDescriptor.open(name, O_RDONLY)
        #expect(flock(holder.raw, LOCK_EX) == 0)
        // (The sweep's own open file description conflicts with this one, as with another process's.)
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        holder.close()
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
        let scratch = ScratchDirectory("wharf-fw")
        let ended = try endedProcessID()
        let lookalikes = [
            ".wharf-tmp-notes.txt",
            ".wharf-tmp-\(ended)",
            ".wharf-tmp-\(ended)-00000000000000AA",  // Upper-case hex is not ours.
            ".wharf-tmp-\(ended)-0000000000000000.bak",
            ".wharf-tmp--0000000000000000",
            "wharf-tmp-\(ended)-0000000000000000",
        ]
        for name in lookalikes { writeFile(scratch.path(name), "user data") }
        scratch.makeDirectory(".wharf-tmp-\(ended)-00000000000000ee")
        #expect(AtomicWriter.removeOrphans(in: scratch.path).isEmpty)
        #expect(scratch.names().count == lookalikes.count + 1)
    }

    @Test func sweepOfAMissingDirectoryRemovesNothing() {
        #expect(AtomicWriter.removeOrphans(in: "/nonexistent/wharf/dir").isEmpty)
    }

    @Test func temporaryNamesCarryThePidAndSixteenHexDigits() {
        let name = TemporaryName.make()
        #expect(TemporaryName.owner(of: Array(name.utf8)) == getpid())
        #expect(name.hasPrefix(AtomicWriter.temporaryPrefix + "\(getpid())-"))
        #expect(name.count == AtomicWriter.temporaryPrefix.count + "\(getpid())".count + 1 + 16)
        #expect(TemporaryName.make() != name)
    }

    /// The pid of a process that has ended (and been reaped).
    private func endedProcessID() throws -> pid_t {
        let child = try ChildProcess(path: "/bin/true", arguments: [], mergeErrors: true)
        child.wait()
        return child.pid
    }
}
