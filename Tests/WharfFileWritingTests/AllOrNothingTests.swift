import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Several items: all are written or none. A failure after some files were renamed into place
/// undoes those renames, including the ones that replaced an existing file.
struct AllOrNothingTests {
    @Test(arguments: WritingTests.configurations.map(\.1))
    func laterItemThatCannotBePlacedRollsBackEarlierOnes(_ configuration: WriterConfiguration) {
        let scratch = ScratchDirectory("wharf-fw")
        let replaced = scratch.path("1-replaced.txt")
        let created = scratch.path("2-created.txt")
        let conflicting = scratch.path("3-conflicting.txt")
        writeFile(replaced, "original one")
        let target = scratch.path("link-target")
        writeFile(target, "target of the link")
        let linked = scratch.path("4-link.txt")
        makeSymlink(target, at: linked)

        #expect(throws: ExportError.exists(path: conflicting)) {
            try AtomicWriter.write(
                [
                    ExportItem(destination: replaced, source: .bytes(Array("new one".utf8)), overwrite: true),
                    ExportItem(destination: linked, source: .bytes(Array("new link".utf8)), overwrite: true),
                    ExportItem(destination: created, source: .bytes(patternBytes(2 << 20)), overwrite: false),
                    ExportItem(destination: conflicting, source: .bytes(Array("new three".utf8)), overwrite: false),
                ],
                progress: { progress in
                    // Once everything is written, another program takes the third name.
                    if progress.bytesWritten == progress.totalBytes { writeFile(conflicting, "someone else's") }
                },
                cancellation: nil, configuration: configuration
            )
        }
        #expect(readText(replaced) == "original one")
        #expect(symlinkTarget(linked) == target.description)
        #expect(readText(target) == "target of the link")
        #expect(linkStatus(created) == nil)
        #expect(readText(conflicting) == "someone else's")
        #expect(scratch.temporaries().isEmpty)
    }

    @Test func laterItemOnAFullFileSystemMeansNoItemIsWritten() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let small = try scratch.tmpfs("small", size: 1 << 20)
        let first = scratch.path("first.txt")
        writeFile(first, "old first")
        let second = small.appending("second.bin")
        #expect(throws: ExportError.self) {
            try AtomicWriter.write([
                ExportItem(destination: first, source: .bytes(Array("new first".utf8)), overwrite: true),
                ExportItem(destination: second, source: .bytes(patternBytes(2 << 20)), overwrite: false),
            ])
        }
        #expect(readText(first) == "old first")
        #expect(scratch.names() == ["first.txt", "small"])
        #expect(scratch.names(in: small).isEmpty)
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func laterDirectoryVanishingRollsBackRenamesInAnotherDirectory(_ configuration: WriterConfiguration) {
        let scratch = ScratchDirectory("wharf-fw")
        let keep = scratch.makeDirectory("keep")
        let vanishing = scratch.makeDirectory("vanishing")
        let first = keep.appending("a.txt")
        writeFile(first, "old a")
        let second = vanishing.appending("b.txt")
        let error = #expect(throws: ExportError.self) {
            try AtomicWriter.write(
                [
                    ExportItem(destination: first, source: .bytes(Array("new a".utf8)), overwrite: true),
                    ExportItem(destination: second, source: .bytes(patternBytes(2 << 20)), overwrite: false),
                ],
                progress: { progress in
                    if progress.bytesWritten == progress.totalBytes { run("/bin/rm", ["-rf", vanishing.description]) }
                },
                cancellation: nil, configuration: configuration
            )
        }
        if case .failed(let path, let cause) = error {
            #expect(path == second && cause.code == ENOENT)
        } else {
            Issue.record("expected a failure, got \(String(describing: error))")
        }
        #expect(readText(first) == "old a")
        #expect(scratch.names(in: keep) == ["a.txt"])
    }
}
