import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// What is already at a destination is replaced only with `overwrite`, and then only the name
/// is replaced: a symlink there is swapped for the file, its target never written.
struct OverwriteTests {
    enum Occupant: String, CaseIterable, CustomTestStringConvertible {
        case regularFile, symlinkToFile, danglingSymlink
        var testDescription: String { rawValue }

        /// Puts this occupant at `path`; returns the path of what a symlink points to.
        @discardableResult
        func place(at path: FilePath, in scratch: ScratchDirectory) -> FilePath {
            let target = scratch.path("target-of-\(String(decoding: path.lastComponent, as: UTF8.self))")
            switch self {
            case .regularFile:
                writeFile(path, "old contents")
            case .symlinkToFile:
                writeFile(target, "link target contents")
                makeSymlink(target, at: path)
            case .danglingSymlink:
                makeSymlink(target, at: path)
            }
            return target
        }
    }

    @Test(arguments: Occupant.allCases, WritingTests.configurations.map(\.1))
    func withoutOverwriteAnOccupiedDestinationIsReportedAndUntouched(_ occupant: Occupant, _ configuration: WriterConfiguration) {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.txt")
        let target = occupant.place(at: destination, in: scratch)
        let before = linkStatus(destination)
        #expect(throws: ExportError.exists(path: destination)) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .bytes(Array("new".utf8)), overwrite: false)],
                progress: nil, cancellation: nil, configuration: configuration
            )
        }
        #expect(linkStatus(destination) == before)
        switch occupant {
        case .regularFile: #expect(readText(destination) == "old contents")
        case .symlinkToFile: #expect(readText(target) == "link target contents")
        case .danglingSymlink: #expect(linkStatus(target) == nil)
        }
        #expect(scratch.temporaries().isEmpty)
    }

    @Test(arguments: Occupant.allCases, WritingTests.configurations.map(\.1))
    func withOverwriteTheOccupantIsReplacedByARegularFile(_ occupant: Occupant, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.txt")
        let target = occupant.place(at: destination, in: scratch)
        try AtomicWriter.write(
            [ExportItem(destination: destination, source: .bytes(Array("new".utf8)), overwrite: true)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(linkStatus(destination)?.kind == .regular)
        #expect(readText(destination) == "new")
        // A planted symlink is replaced, never written through.
        switch occupant {
        case .regularFile: break
        case .symlinkToFile: #expect(readText(target) == "link target contents")
        case .danglingSymlink: #expect(linkStatus(target) == nil)
        }
        #expect(scratch.temporaries().isEmpty)
    }

    /// A replaced file's permissions are the new file's: a private document (0600) saved over
    /// stays private, an executable stays executable, whatever the umask would give a new file.
    /// Its owner and group too, where the writer may give them (it runs as root here).
    @Test(arguments: [0o600, 0o640, 0o755, 0o666] as [mode_t], WritingTests.configurations.map(\.1))
    func overwriteKeepsTheReplacedFilesPermissionsAndOwner(_ mode: mode_t, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.txt")
        writeFile(destination, "old contents")
        setMode(destination, mode)
        #expect(destination.withCString { chown($0, 65534, 65534) } == 0)
        try AtomicWriter.write(
            [ExportItem(destination: destination, source: .bytes(Array("new".utf8)), overwrite: true)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(readText(destination) == "new")
        let status = try FileStatus.ofLink(destination)
        #expect(status.mode & 0o7777 == UInt32(mode))
        #expect(status.owner == 65534 && status.group == 65534)
    }

    @Test func overwriteKeepsOtherHardLinksOfTheOldFileIntact() throws {
        // Replacing renames a new inode into place; the old one, seen through another link,
        // keeps its contents (nothing is truncated or written in place).
        let scratch = ScratchDirectory("wharf-fw")
        writeFile(scratch.path("doc"), "old")
        hardLink(scratch.path("doc"), at: scratch.path("other-link"))
        try AtomicWriter.write([ExportItem(destination: scratch.path("doc"), source: .bytes(Array("new".utf8)), overwrite: true)])
        #expect(readText(scratch.path("doc")) == "new")
        #expect(readText(scratch.path("other-link")) == "old")
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func overwriteOfAMissingDestinationCreatesIt(_ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-fw")
        try AtomicWriter.write(
            [ExportItem(destination: scratch.path("new"), source: .bytes([7]), overwrite: true)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(readFile(scratch.path("new")) == [7])
        #expect(scratch.names() == ["new"])
    }

    @Test func aDirectoryAtTheDestinationIsNeverReplaced() {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.makeDirectory("folder")
        writeFile(destination.appending("keep"), "inside")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EISDIR, operation: "replace", path: destination))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: true)])
        }
        #expect(readText(destination.appending("keep")) == "inside")
        #expect(scratch.temporaries().isEmpty)
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func aFileThatAppearsAfterTheCheckIsStillNotReplaced(_ configuration: WriterConfiguration) {
        // The early existence check passes; another program creates the file while the export
        // runs (in the progress callback, after every byte is written). The rename itself must
        // refuse to replace it: no check-then-act race.
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("late.txt")
        let intruder = destination
        #expect(throws: ExportError.exists(path: destination)) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .bytes(patternBytes(2 << 20)), overwrite: false)],
                progress: { progress in
                    if progress.bytesWritten == progress.totalBytes { writeFile(intruder, "someone else's") }
                },
                cancellation: nil, configuration: configuration
            )
        }
        #expect(readText(destination) == "someone else's")
        #expect(scratch.temporaries().isEmpty)
    }
}
