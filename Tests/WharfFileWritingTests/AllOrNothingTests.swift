#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfSystem
@testable import WharfFileWriting

/// Several items: all are written or none. A failure after some files were renamed into place
/// undoes those renames, including the ones that replaced an existing file.
struct AllOrNothingTests {
    @Test(arguments: WritingTests.configurations.map(\.1))
    func laterItemThatCannotBePlacedRollsBackEarlierOnes(_ configuration: WriterConfiguration) {
        let scratch = Scratch()
        let replaced = scratch.at("1-replaced.txt")
        let created = scratch.at("2-created.txt")
        let conflicting = scratch.at("3-conflicting.txt")
        put("original one", at: replaced)
        let target = scratch.at("link-target")
        put("target of the link", at: target)
        let linked = scratch.at("4-link.txt")
        #expect(symlink(target, linked) == 0)

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
                    if progress.bytesWritten == progress.totalBytes { put("someone else's", at: conflicting) }
                },
                cancellation: nil, configuration: configuration
            )
        }
        #expect(text(of: replaced) == "original one")
        #expect(symlinkTarget(linked) == target)
        #expect(text(of: target) == "target of the link")
        #expect(linkStatus(created) == nil)
        #expect(text(of: conflicting) == "someone else's")
        #expect(scratch.temporaries().isEmpty)
    }

    @Test func laterItemOnAFullFileSystemMeansNoItemIsWritten() throws {
        let scratch = Scratch()
        let small = try scratch.tmpfs("small", size: 1 << 20)
        let first = scratch.at("first.txt")
        put("old first", at: first)
        let second = FilePath.join(small, "second.bin")
        #expect(throws: ExportError.self) {
            try AtomicWriter.write([
                ExportItem(destination: first, source: .bytes(Array("new first".utf8)), overwrite: true),
                ExportItem(destination: second, source: .bytes(patternBytes(2 << 20)), overwrite: false),
            ])
        }
        #expect(text(of: first) == "old first")
        #expect(scratch.names() == ["first.txt", "small"])
        #expect(scratch.names(in: small).isEmpty)
    }

    @Test(arguments: WritingTests.configurations.map(\.1))
    func laterDirectoryVanishingRollsBackRenamesInAnotherDirectory(_ configuration: WriterConfiguration) {
        let scratch = Scratch()
        let keep = scratch.directory("keep")
        let vanishing = scratch.directory("vanishing")
        let first = FilePath.join(keep, "a.txt")
        put("old a", at: first)
        let second = FilePath.join(vanishing, "b.txt")
        let error = #expect(throws: ExportError.self) {
            try AtomicWriter.write(
                [
                    ExportItem(destination: first, source: .bytes(Array("new a".utf8)), overwrite: true),
                    ExportItem(destination: second, source: .bytes(patternBytes(2 << 20)), overwrite: false),
                ],
                progress: { progress in
                    if progress.bytesWritten == progress.totalBytes { run("/bin/rm", ["-rf", vanishing]) }
                },
                cancellation: nil, configuration: configuration
            )
        }
        if case .failed(let path, let cause) = error {
            #expect(path == second && cause.code == ENOENT)
        } else {
            Issue.record("expected a failure, got \(String(describing: error))")
        }
        #expect(text(of: first) == "old a")
        #expect(scratch.names(in: keep) == ["a.txt"])
    }
}
