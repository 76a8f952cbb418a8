#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfSystem
@testable import WharfFileWriting

/// What is already at a destination is replaced only with `overwrite`, and then only the name
/// is replaced: a symlink there is swapped for the file, its target never written.
struct OverwriteTests {
    enum Occupant: String, CaseIterable, CustomTestStringConvertible {
        case regularFile, symlinkToFile, danglingSymlink
        var testDescription: String { rawValue }

        /// Puts this occupant at `path`; returns the path of what a symlink points to.
        @discardableResult
        func place(at path: String, in scratch: Scratch) -> String {
            let target = scratch.at("target-of-\(FilePath.lastComponent(of: path))")
            switch self {
            case .regularFile:
                put("old contents", at: path)
            case .symlinkToFile:
                put("link target contents", at: target)
                precondition(symlink(target, path) == 0)
            case .danglingSymlink:
                precondition(symlink(target, path) == 0)
            }
            return target
        }
    }

    @Test(arguments: Occupant.allCases, WritingTests.configurations.map(\.1))
    func withoutOverwriteAnOccupiedDestinationIsReportedAndUntouched(_ occupant: Occupant, _ configuration: WriterConfiguration) {
        let scratch = Scratch()
        let destination = scratch.at("doc.txt")
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
        case .regularFile: #expect(text(of: destination) == "old contents")
        case .symlinkToFile: #expect(text(of: target) == "link target contents")
        case .danglingSymlink: #expect(linkStatus(target) == nil)
        }
        #expect(scratch.temporaries().isEmpty)
    }

    @Test(arguments: Occupant.allCases, WritingTests.configurations.map(\.1))
    func withOverwriteTheOccupantIsReplacedByARegularFile(_ occupant: Occupant, _ configuration: WriterConfiguration) throws {
        let scratch = Scratch()
        let destination = scratch.at("doc.txt")
        let target = occupant.place(at: destination, in: scratch)
        try AtomicWriter.write(
            [ExportItem(destination: destination, source: .bytes(Array("new".utf8)), overwrite: true)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(linkStatus(destination)?.kind == .regular)
        #expect(text(of: destination) == "new")
        // A planted symlink is replaced, never written through.
        switch occupant {
        case .regularFile: break
        case .symlinkToFile: #expect(text(of: target) == "link target contents")
        case .danglingSymlink: #expect(linkStatus(target) == nil)
        }
        #expect(scratch.temporaries().isEmpty)
    }

    @Test func overwriteKeepsOtherHardLinksOfTheOldFileIntact() throws {
        // Replacing renames a new inode into place; the old one, seen through another link,
        // keeps its contents (nothing is truncated or written in place).
        let scratch = Scratch()
        put("old", at: scratch.at("doc"))
        #expect(link(scratch.at("doc"), scratch.at("other-link")) == 0)
        try AtomicWriter.write([ExportItem(destination: scratch.at("doc"), source: .bytes(Array("new".utf8)), overwrite: true)])
        #expect(text(of: scratch.at("doc")) == "new")
        #expect(text(of: scratch.at("other-link")) == "old")
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func overwriteOfAMissingDestinationCreatesIt(_ configuration: WriterConfiguration) throws {
        let scratch = Scratch()
        try AtomicWriter.write(
            [ExportItem(destination: scratch.at("new"), source: .bytes([7]), overwrite: true)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(contents(of: scratch.at("new")) == [7])
        #expect(scratch.names() == ["new"])
    }

    @Test func aDirectoryAtTheDestinationIsNeverReplaced() {
        let scratch = Scratch()
        let destination = scratch.directory("folder")
        put("inside", at: FilePath.join(destination, "keep"))
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EISDIR, operation: "replace", path: destination))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: true)])
        }
        #expect(text(of: FilePath.join(destination, "keep")) == "inside")
        #expect(scratch.temporaries().isEmpty)
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func aFileThatAppearsAfterTheCheckIsStillNotReplaced(_ configuration: WriterConfiguration) {
        // The early existence check passes; another program creates the file while the export
        // runs (in the progress callback, after every byte is written). The rename itself must
        // refuse to replace it: no check-then-act race.
        let scratch = Scratch()
        let destination = scratch.at("late.txt")
        let intruder = destination
        #expect(throws: ExportError.exists(path: destination)) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .bytes(patternBytes(2 << 20)), overwrite: false)],
                progress: { progress in
                    if progress.bytesWritten == progress.totalBytes { put("someone else's", at: intruder) }
                },
                cancellation: nil, configuration: configuration
            )
        }
        #expect(text(of: destination) == "someone else's")
        #expect(scratch.temporaries().isEmpty)
    }
}
