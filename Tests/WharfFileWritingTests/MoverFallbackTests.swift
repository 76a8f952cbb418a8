import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// The same promises where the Linux extensions are missing: file systems that reject
/// `renameat2` flags (NFS, some FUSE ones) or hard links, and copies without the kernel's help.
struct MoverFallbackTests {
    static let configurations: [(String, WriterConfiguration)] = [
        ("no renameat2 flags", WriterConfiguration(renameFlags: false)),
        ("no renameat2 flags, no hard links", WriterConfiguration(renameFlags: false, hardLinks: false)),
        ("read/write loop", WriterConfiguration(chunkSize: 64 << 10, bufferSize: 16 << 10, kernelCopy: false)),
    ]

    static func move(
        _ items: [MoveItem], into folder: FilePath, _ resolution: MoveConflictResolution, _ configuration: WriterConfiguration,
        observer: (@Sendable (MoveStep) -> Void)? = nil
    ) throws(MoveError) -> [FilePath] {
        try FileMover.move(items, into: folder, resolution: resolution, progress: nil, cancellation: nil, observer: observer,
                           configuration: configuration)
    }

    @Test(arguments: configurations)
    func withinOneFileSystemNothingIsReplacedUnasked(_ name: String, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-mv")
        let from = scratch.makeDirectory("from"), to = scratch.makeDirectory("to")
        scratch.write("from/a.txt", "a")
        scratch.write("from/docs/in.txt", "in")
        scratch.symlink("from/link", to: "a.txt")
        let moved = try Self.move(["a.txt", "docs", "link"].map { MoveItem(source: from.appending($0)) }, into: to, .fail, configuration)
        #expect(readText(moved[0]) == "a")
        #expect(readText(moved[1].appending("in.txt")) == "in")
        #expect(symlinkTarget(moved[2]) == "a.txt")
        #expect(scratch.names(in: from).isEmpty)

        // A name taken after the check, by a file's name or a folder's: refused, and the item
        // moved before it goes back.
        scratch.write("from/b.txt", "b")
        scratch.makeDirectory("from/c")
        for (order, taken) in [(["b.txt", "c"], "c"), (["c", "b.txt"], "b.txt")] {
            let late = to.appending(taken)
            #expect(throws: MoveError.nameConflict(late)) {
                try Self.move(order.map { MoveItem(source: from.appending($0)) }, into: to, .fail, configuration,
                              observer: { step in if step == .prepared { writeFile(late, "someone else's") } })
            }
            #expect(readText(late) == "someone else's")
            #expect(readText(from.appending("b.txt")) == "b")
            #expect(scratch.names(in: from) == ["b.txt", "c"])
            #expect(scratch.temporaries(in: to).isEmpty && scratch.temporaries(in: from).isEmpty)
            #expect(removeFile(late))
        }
    }

    @Test(arguments: configurations)
    func replacingIsUndoneWhenALaterItemFails(_ name: String, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-mv")
        let from = scratch.makeDirectory("from"), to = scratch.makeDirectory("to")
        scratch.write("from/a.txt", "new a")
        scratch.write("to/a.txt", "old a")
        scratch.write("from/docs/new.txt", "new folder")
        scratch.write("to/docs/old.txt", "old folder")
        let locked = scratch.makeDirectory("locked")
        scratch.write("locked/z.txt", "z")
        try scratch.makeReadOnly(locked)
        let items = [MoveItem(source: from.appending("a.txt")), MoveItem(source: from.appending("docs")), MoveItem(source: locked.appending("z.txt"))]
        #expect(throws: MoveError.self) { try Self.move(items, into: to, .replace, configuration) }
        #expect(readText(to.appending("a.txt")) == "old a")
        #expect(scratch.names(in: to.appending("docs")) == ["old.txt"])
        #expect(readText(from.appending("a.txt")) == "new a")
        #expect(scratch.names(in: from.appending("docs")) == ["new.txt"])
        #expect(scratch.names(in: to) == ["a.txt", "docs"])

        let moved = try Self.move(Array(items.prefix(2)), into: to, .replace, configuration)
        #expect(readText(moved[0]) == "new a")
        #expect(scratch.names(in: moved[1]) == ["new.txt"])
        #expect(scratch.names(in: to) == ["a.txt", "docs"])
    }

    @Test(arguments: configurations)
    func acrossFileSystemsEverythingGoesBackOrEverythingMoves(_ name: String, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-mv")
        let memory = try scratch.tmpfs("memory", size: 32 << 20)
        let disk = scratch.makeDirectory("disk")
        writeFile(memory.appending("a.bin"), patternBytes(3 << 20))
        try Syscalls.makeDirectories(memory.appending("docs/deep"), mode: 0o755)
        writeFile(memory.appending("docs/deep/b.txt"), "b")
        scratch.write("disk/a.bin", "old a")
        let locked = scratch.makeDirectory("locked")
        scratch.write("locked/z.txt", "z")
        try scratch.makeReadOnly(locked)
        let items = [MoveItem(source: memory.appending("a.bin")), MoveItem(source: memory.appending("docs"))]
        #expect(throws: MoveError.self) { try Self.move(items + [MoveItem(source: locked.appending("z.txt"))], into: disk, .replace, configuration) }
        #expect(readText(disk.appending("a.bin")) == "old a")
        #expect(scratch.names(in: disk) == ["a.bin"])
        #expect(scratch.names(in: memory) == ["a.bin", "docs"])

        let moved = try Self.move(items, into: disk, .replace, configuration)
        #expect(readFile(moved[0]) == patternBytes(3 << 20))
        #expect(readText(moved[1].appending("deep/b.txt")) == "b")
        #expect(scratch.names(in: memory).isEmpty)
        #expect(scratch.names(in: disk) == ["a.bin", "docs"])
    }
}
