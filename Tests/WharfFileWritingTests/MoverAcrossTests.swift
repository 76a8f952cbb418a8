import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Moving across file systems (a tmpfs and the disk under /tmp): a copy that looks as the
/// original did, in place only when complete, the original removed only then, and everything
/// put back when any item fails.
struct MoverAcrossTests {
    /// A folder on a tmpfs and one on the disk.
    struct Folders {
        let scratch = ScratchDirectory("wharf-mv")
        let memory: FilePath
        var disk: FilePath { scratch.path("disk") }
        init(memorySize: Int = 64 << 20) throws {
            memory = try scratch.tmpfs("memory", size: memorySize)
            scratch.makeDirectory("disk")
        }
        /// No Wharf temporary is left in either folder.
        func noTemporaries() -> Bool {
            scratch.temporaries(in: memory).isEmpty && scratch.temporaries(in: disk).isEmpty
        }
    }

    static func setTimes(_ path: FilePath, seconds: Int, nanoseconds: Int) {
        let times = [timespec(tv_sec: seconds - 100, tv_nsec: 1), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        #expect(path.withCString { utimensat(AT_FDCWD, $0, times, AT_SYMLINK_NOFOLLOW) } == 0)
    }

    static func times(_ path: FilePath) -> FileTimes {
        var raw = stat()
        _ = path.withCString { lstat($0, &raw) }
        return FileTimes(raw)
    }

    @Test func aFileCrossesWithItsContentsPermissionsOwnerAndTimes() throws {
        let folders = try Folders()
        let source = folders.memory.appending("report.bin")
        writeFile(source, patternBytes(3 << 20), mode: 0o640)
        setMode(source, 0o640)
        #expect(source.withCString { chown($0, 1234, 5678) } == 0)
        Self.setTimes(source, seconds: 1_600_000_000, nanoseconds: 123_456_789)
        let before = Self.times(source)
        let moved = try FileMover.move([MoveItem(source: source)], into: folders.disk, resolution: .fail, progress: nil, cancellation: nil)
        #expect(moved == [folders.disk.appending("report.bin")])
        // (Before reading it, which sets the access time.)
        #expect(Self.times(moved[0]).modified == before.modified)
        #expect(Self.times(moved[0]).accessed == before.accessed)
        #expect(readFile(moved[0]) == patternBytes(3 << 20))
        let status = try FileStatus.ofLink(moved[0])
        #expect(status.mode & 0o7777 == 0o640)
        #expect(status.owner == 1234 && status.group == 5678)
        #expect(!exists(source))
        #expect(folders.noTemporaries())
    }

    @Test func aFolderCrossesWholeWithLinksKept() throws {
        let folders = try Folders()
        let top = folders.memory.appending("project")
        try Syscalls.makeDirectories(top.appending("src/empty"), mode: 0o755)
        writeFile(top.appending("src/main.c"), Array("int main;".utf8), mode: 0o600)
        setMode(top.appending("src/main.c"), 0o600)
        writeFile(top.appending("README"), patternBytes(100_000))
        hardLink(top.appending("README"), at: top.appending("src/README.again"))
        makeSymlink("../README", at: top.appending("src/readme-link"))
        makeSymlink("/nonexistent/dangling", at: top.appending("dangling"))
        setMode(top.appending("src"), 0o750)
        Self.setTimes(top.appending("src"), seconds: 1_500_000_000, nanoseconds: 42)
        Self.setTimes(top.appending("src/readme-link"), seconds: 1_400_000_000, nanoseconds: 7)

        let moved = try FileMover.move([MoveItem(source: top)], into: folders.disk, resolution: .fail, progress: nil, cancellation: nil)
        let copy = try #require(moved.first)
        #expect(copy == folders.disk.appending("project"))
        #expect(readText(copy.appending("src/main.c")) == "int main;")
        #expect(try FileStatus.ofLink(copy.appending("src/main.c")).mode & 0o777 == 0o600)
        #expect(try FileStatus.ofLink(copy.appending("src")).mode & 0o777 == 0o750)
        #expect(Self.times(copy.appending("src")).modified == FileTimes.Timestamp(seconds: 1_500_000_000, nanoseconds: 42))
        #expect(Self.times(copy.appending("src/readme-link")).modified == FileTimes.Timestamp(seconds: 1_400_000_000, nanoseconds: 7))
        #expect(try FileStatus.ofLink(copy.appending("src/empty")).kind == .directory)
        #expect(readFile(copy.appending("README")) == patternBytes(100_000))
        #expect(try FileStatus.ofLink(copy.appending("README")).inode == FileStatus.ofLink(copy.appending("src/README.again")).inode)
        #expect(symlinkTarget(copy.appending("src/readme-link")) == "../README")
        #expect(symlinkTarget(copy.appending("dangling")) == "/nonexistent/dangling")
        #expect(!exists(top))
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
        #expect(folders.noTemporaries())
    }

    @Test func aFailingLaterItemPutsBackTheCopiesAndWhatTheyReplaced() throws {
        // The destination is a 1 MiB tmpfs: the first item fits, the second does not (ENOSPC).
        let folders = try Folders(memorySize: 1 << 20)
        let small = folders.scratch.write("disk/small.txt", "small and new")
        let big = folders.scratch.write("disk/big.bin", patternBytes(2 << 20))
        writeFile(folders.memory.appending("small.txt"), "small and old")
        let error = #expect(throws: MoveError.self) {
            try FileMover.move([MoveItem(source: small), MoveItem(source: big)], into: folders.memory, resolution: .replace,
                               progress: nil, cancellation: nil)
        }
        guard case .failed(let path, let cause)? = error else { Issue.record("expected a failure, got \(String(describing: error))"); return }
        #expect(path == folders.memory.appending("big.bin"))
        #expect(cause.hasSuffix("No space left on device"))
        #expect(readText(small) == "small and new")
        #expect(readFile(big) == patternBytes(2 << 20))
        #expect(readText(folders.memory.appending("small.txt")) == "small and old")
        #expect(folders.scratch.names(in: folders.memory) == ["small.txt"])
        #expect(folders.noTemporaries())
    }

    @Test func aFailureAfterEveryCopyIsPlacedStillPutsBackEverything() throws {
        // The second original's folder is read-only: setting it aside fails once both copies
        // are in place; both copies go, both originals stay.
        let folders = try Folders()
        let first = folders.scratch.write("disk/first.txt", "first")
        let locked = folders.scratch.makeDirectory("disk/locked")
        let second = folders.scratch.write("disk/locked/second.txt", "second")
        try folders.scratch.makeReadOnly(locked)
        let error = #expect(throws: MoveError.self) {
            try FileMover.move([MoveItem(source: first), MoveItem(source: second)], into: folders.memory, resolution: .fail,
                               progress: nil, cancellation: nil)
        }
        #expect(error == .failed(second, "rename \(second): Read-only file system"))
        #expect(readText(first) == "first")
        #expect(readText(second) == "second")
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
        #expect(folders.noTemporaries())
    }

    @Test func aFolderThatDoesNotFitLeavesNoPartOfItsCopy() throws {
        let folders = try Folders(memorySize: 1 << 20)
        folders.scratch.write("disk/box/a.txt", patternBytes(300_000))
        folders.scratch.write("disk/box/inner/b.bin", patternBytes(900_000, seed: 3))
        let error = #expect(throws: MoveError.self) {
            try FileMover.move([MoveItem(source: folders.disk.appending("box"))], into: folders.memory, resolution: .fail,
                               progress: nil, cancellation: nil)
        }
        guard case .failed(let path, let cause)? = error else { Issue.record("expected a failure, got \(String(describing: error))"); return }
        #expect(path == folders.memory.appending("box"))
        #expect(cause.hasSuffix("No space left on device"))
        #expect(readFile(folders.disk.appending("box/inner/b.bin")) == patternBytes(900_000, seed: 3))
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
    }

    @Test func aFolderGainingAFileWhileItIsCopiedFailsTheMove() throws {
        // Removing the original would lose the file added after its folder was read.
        let folders = try Folders()
        let box = folders.disk.appending("box")
        folders.scratch.write("disk/box/big.bin", patternBytes(6 << 20))
        let added = Locked(false)
        #expect(throws: MoveError.sourceChanged(box)) {
            try FileMover.move([MoveItem(source: box)], into: folders.memory, resolution: .fail,
                               progress: { _ in
                                   guard added.withValue({ done in defer { done = true }; return !done }) else { return }
                                   writeFile(box.appending("late.txt"), "written during the move")
                               }, cancellation: nil)
        }
        #expect(readText(box.appending("late.txt")) == "written during the move")
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
        #expect(folders.noTemporaries())
    }

    @Test func cancellingALargeCopyMovesNothing() throws {
        let folders = try Folders()
        let source = folders.scratch.write("disk/large.bin", patternBytes(24 << 20))
        let cancellation = ExportCancellation()
        #expect(throws: MoveError.cancelled) {
            try FileMover.move([MoveItem(source: source)], into: folders.memory, resolution: .fail,
                               progress: { _ in cancellation.cancel() }, cancellation: cancellation)
        }
        #expect(readFile(source) == patternBytes(24 << 20))
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
        #expect(folders.noTemporaries())
    }

    @Test func largeCopiesReportProgressEndingAtTheTotal() throws {
        let folders = try Folders()
        let one = folders.scratch.write("disk/one.bin", patternBytes(9 << 20))
        let two = folders.scratch.write("disk/two/inner.bin", patternBytes(3 << 20))
        let reports = Locked<[ExportProgress]>([])
        _ = try FileMover.move([MoveItem(source: one), MoveItem(source: two.directory)], into: folders.memory, resolution: .fail,
                               progress: { progress in reports.withValue { $0.append(progress) } }, cancellation: nil)
        let seen = reports.withValue { $0 }
        #expect(seen.count >= 2)
        #expect(seen.last == ExportProgress(bytesWritten: 12 << 20, totalBytes: 12 << 20))
        #expect(seen.allSatisfy { $0.totalBytes == 12 << 20 })
    }

    @Test func aSourceWrittenToWhileItIsCopiedFailsTheMove() throws {
        let folders = try Folders()
        let source = folders.scratch.write("disk/growing.log", patternBytes(12 << 20))
        let appended = Locked(false)
        #expect(throws: MoveError.sourceChanged(source)) {
            try FileMover.move([MoveItem(source: source)], into: folders.memory, resolution: .fail,
                               progress: { _ in
                                   guard appended.withValue({ done in defer { done = true }; return !done }) else { return }
                                   let file = try! FileDescriptor.open(source, O_WRONLY | O_APPEND)
                                   try! file.write(all: Array("one more line\n".utf8))
                               }, cancellation: nil)
        }
        #expect(try FileStatus.ofLink(source).size == (12 << 20) + 14)
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
        #expect(folders.noTemporaries())
    }

    @Test func aFIFOInsideAFolderRefusesTheMoveBeforeAnythingIsCopied() throws {
        let folders = try Folders()
        folders.scratch.write("disk/box/a.txt", "a")
        let fifo = folders.scratch.fifo("disk/box/pipe")
        #expect(throws: MoveError.unsupportedFileType(fifo, "a FIFO")) {
            try FileMover.move([MoveItem(source: folders.disk.appending("box"))], into: folders.memory, resolution: .fail,
                               progress: nil, cancellation: nil)
        }
        #expect(readText(folders.disk.appending("box/a.txt")) == "a")
        #expect(folders.scratch.names(in: folders.memory).isEmpty)
    }

    @Test func replaceAcrossReplacesFilesAndFolders() throws {
        let folders = try Folders()
        let file = folders.scratch.write("disk/a.txt", "new a")
        folders.scratch.write("disk/docs/new.txt", "new folder")
        writeFile(folders.memory.appending("a.txt"), "old a")
        try Syscalls.makeDirectories(folders.memory.appending("docs"), mode: 0o755)
        writeFile(folders.memory.appending("docs/old.txt"), "old folder")
        let moved = try FileMover.move([MoveItem(source: file), MoveItem(source: folders.disk.appending("docs"))], into: folders.memory,
                                       resolution: .replace, progress: nil, cancellation: nil)
        #expect(readText(moved[0]) == "new a")
        #expect(folders.scratch.names(in: moved[1]) == ["new.txt"])
        #expect(folders.scratch.names(in: folders.memory) == ["a.txt", "docs"])
        #expect(folders.scratch.names(in: folders.disk).isEmpty)
    }

    @Test func aBindMountOfTheSameDeviceIsCrossedByCopying() throws {
        // Same st_dev, yet rename refuses (EXDEV): the move copies instead.
        let folders = try Folders()
        let mountPoint = folders.scratch.makeDirectory("bound")
        let origin = folders.scratch.makeDirectory("origin")
        folders.scratch.write("origin/a.txt", "through a bind mount")
        #expect(origin.withCString { from in mountPoint.withCString { mount(from, $0, nil, UInt(MS_BIND), nil) } } == 0)
        defer { _ = mountPoint.withCString { umount2($0, Int32(MNT_DETACH)) } }
        let moved = try FileMover.move([MoveItem(source: mountPoint.appending("a.txt"))], into: folders.disk, resolution: .fail,
                                       progress: nil, cancellation: nil)
        #expect(readText(moved[0]) == "through a bind mount")
        #expect(!exists(origin.appending("a.txt")))
        #expect(folders.noTemporaries())
        #expect(folders.scratch.temporaries(in: origin).isEmpty)
    }

    @Test func theSweepRemovesAFolderLeftByAKilledMoveButNotALiveOnes() throws {
        let folders = try Folders()
        let ended = try ChildProcess(path: "/bin/true", arguments: [], mergeErrors: true)
        ended.wait()
        let live = try ChildProcess(path: "/bin/sleep", arguments: ["60"], mergeErrors: true)
        defer { live.kill(); _ = live.wait() }
        let orphan = folders.disk.appending(".wharf-tmp-dir-\(ended.pid)-00000000000000aa")
        let inUse = folders.disk.appending(".wharf-tmp-dir-\(live.pid)-00000000000000bb")
        try Syscalls.makeDirectories(orphan.appending("deep/er"), mode: 0o755)
        writeFile(orphan.appending("deep/er/file"), "half a folder")
        makeSymlink("/etc/passwd", at: orphan.appending("link"))
        try Syscalls.makeDirectories(inUse, mode: 0o755)
        #expect(AtomicWriter.removeOrphans(in: folders.disk) == [orphan])
        #expect(folders.scratch.names(in: folders.disk) == [String(decoding: inUse.lastComponent, as: UTF8.self)])
        #expect(exists("/etc/passwd"))
    }
}
