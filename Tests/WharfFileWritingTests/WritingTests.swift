#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfSystem
@testable import WharfFileWriting

/// The ordinary path: bytes land exactly, with the right mode, and nothing else is left behind.
struct WritingTests {
    /// The configurations a write can take: the kernel copy and renameat2 flags as on Linux's
    /// usual file systems, and the fallbacks used where they are missing.
    static let configurations: [(String, WriterConfiguration)] = [
        ("kernel copy, renameat2 flags", WriterConfiguration()),
        ("read/write loop, link fallbacks", WriterConfiguration(chunkSize: 64 << 10, bufferSize: 16 << 10, kernelCopy: false, renameFlags: false)),
    ]

    @Test func bytesSourceIsWrittenExactly() throws {
        let scratch = Scratch()
        let bytes = patternBytes(300_001)
        try AtomicWriter.write([ExportItem(destination: scratch.at("out.bin"), source: .bytes(bytes), overwrite: false)])
        #expect(contents(of: scratch.at("out.bin")) == bytes)
        #expect(scratch.names() == ["out.bin"])
    }

    @Test(arguments: configurations)
    func fileSourceIsCopiedExactly(_ name: String, _ configuration: WriterConfiguration) throws {
        let scratch = Scratch()
        let bytes = patternBytes(9 << 20 | 12_345)
        put(bytes, at: scratch.at("source"))
        try AtomicWriter.write(
            [ExportItem(destination: scratch.at("copy"), source: .file(path: scratch.at("source")), overwrite: false)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(contents(of: scratch.at("copy")) == bytes)
        #expect(scratch.names() == ["source", "copy"])
    }

    @Test func fileSourceOnAnotherFileSystemIsCopiedExactly() throws {
        // /tmp and a tmpfs: copy_file_range refuses to cross (EXDEV), sendfile takes over.
        let scratch = Scratch()
        let target = try scratch.tmpfs("tmpfs", size: 16 << 20)
        let bytes = patternBytes(5 << 20 | 7)
        put(bytes, at: scratch.at("source"))
        try AtomicWriter.write([ExportItem(destination: FilePath.join(target, "copy"), source: .file(path: scratch.at("source")), overwrite: false)])
        #expect(contents(of: FilePath.join(target, "copy")) == bytes)
    }

    @Test func emptySourcesProduceEmptyFiles() throws {
        let scratch = Scratch()
        put([], at: scratch.at("empty-source"))
        try AtomicWriter.write([
            ExportItem(destination: scratch.at("from-bytes"), source: .bytes([]), overwrite: false),
            ExportItem(destination: scratch.at("from-file"), source: .file(path: scratch.at("empty-source")), overwrite: false),
        ])
        #expect(linkStatus(scratch.at("from-bytes"))?.kind == .regular)
        #expect(contents(of: scratch.at("from-bytes")) == [])
        #expect(contents(of: scratch.at("from-file")) == [])
        #expect(scratch.temporaries().isEmpty)
    }

    @Test func fileThatReportsSizeZeroIsStillReadToItsEnd() throws {
        // procfs files claim size 0; a kernel copy trusting that would write an empty file.
        let scratch = Scratch()
        try AtomicWriter.write([ExportItem(destination: scratch.at("status"), source: .file(path: "/proc/self/status"), overwrite: false)])
        #expect(text(of: scratch.at("status"))?.contains("Umask:") == true)
    }

    @Test func fifoSourceIsReadUntilItsWriterCloses() throws {
        let scratch = Scratch()
        let fifo = scratch.at("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = patternBytes(3 << 20)
        put(bytes, at: scratch.at("data"))
        // `cat` feeds the FIFO from another process; the writer reads to its end.
        let feeder = try ChildProcess("/bin/sh", ["-c", "cat \(scratch.at("data")) > \(fifo)"], outputPath: scratch.at("feeder.out"))
        try AtomicWriter.write([ExportItem(destination: scratch.at("out"), source: .file(path: fifo), overwrite: false)])
        #expect(feeder.wait() == 0)
        #expect(contents(of: scratch.at("out")) == bytes)
    }

    @Test func newFilesGetMode0666FilteredByTheUmask() throws {
        let scratch = Scratch()
        try AtomicWriter.write([ExportItem(destination: scratch.at("f"), source: .bytes([1]), overwrite: false)])
        let mode = try FileStatus.of(scratch.at("f")).mode & 0o7777
        #expect(mode == 0o666 & ~UInt32(currentUmask()))
    }

    @Test func severalItemsAreAllWritten() throws {
        let scratch = Scratch()
        let other = scratch.directory("other")
        try AtomicWriter.write([
            ExportItem(destination: scratch.at("a.txt"), source: .bytes(Array("alpha".utf8)), overwrite: false),
            ExportItem(destination: scratch.at("b.txt"), source: .bytes(Array("beta".utf8)), overwrite: false),
            ExportItem(destination: FilePath.join(other, "c.txt"), source: .bytes(Array("gamma".utf8)), overwrite: false),
        ])
        #expect(text(of: scratch.at("a.txt")) == "alpha")
        #expect(text(of: scratch.at("b.txt")) == "beta")
        #expect(text(of: FilePath.join(other, "c.txt")) == "gamma")
        #expect(scratch.temporaries().isEmpty && scratch.temporaries(in: other).isEmpty)
    }

    @Test func noItemsWriteNothing() throws {
        let scratch = Scratch()
        try AtomicWriter.write([])
        #expect(scratch.names().isEmpty)
    }

    @Test(arguments: [
        ("relative/path.txt", "export to a relative path"),
        ("/tmp/", "export to a path that names no file"),
        ("/tmp/..", "export to a path that names no file"),
        ("/tmp/.wharf-tmp-123-0123456789abcdef", "export to a name reserved for temporary files"),
    ])
    func destinationsThatNameNoOrdinaryFileAreRefused(_ destination: String, _ operation: String) {
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EINVAL, operation: operation, path: destination))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: true)])
        }
    }

    @Test func theSameDestinationTwiceIsRefusedAndNothingIsWritten() {
        let scratch = Scratch()
        let again = scratch.at("./twice")
        #expect(throws: ExportError.failed(path: again, cause: SystemError(code: EINVAL, operation: "export two documents to", path: again))) {
            try AtomicWriter.write([
                ExportItem(destination: scratch.at("first"), source: .bytes([1]), overwrite: false),
                ExportItem(destination: scratch.at("twice"), source: .bytes([1]), overwrite: true),
                ExportItem(destination: again, source: .bytes([2]), overwrite: true),
            ])
        }
        #expect(scratch.names().isEmpty)
    }

    @Test func missingDestinationDirectoryFailsNamingTheFile() {
        let scratch = Scratch()
        let destination = scratch.at("nowhere/file")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: ENOENT, operation: "open directory", path: scratch.at("nowhere")))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: false)])
        }
    }

    @Test func temporaryFileIsNeverCreatedThroughAPlantedSymlink() throws {
        // The writer's random names cannot be planted in advance; this checks the creation call
        // itself refuses a name that is a symlink, even a dangling one, and leaves it alone.
        let scratch = Scratch()
        let victim = scratch.at("victim")
        #expect(symlink(victim, scratch.at(".wharf-tmp-1-0000000000000000")) == 0)
        let directory = try Syscalls.openDirectory(scratch.path)
        defer { close(directory) }
        #expect(throws: SystemError(code: EEXIST, operation: "create a temporary file in", path: scratch.path)) {
            try Syscalls.createExclusive(in: directory, ".wharf-tmp-1-0000000000000000", reportedAs: scratch.path)
        }
        #expect(linkStatus(victim) == nil)
    }
}
