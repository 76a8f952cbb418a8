import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// The ordinary path: bytes land exactly, with the right mode, and nothing else is left behind.
struct WritingTests {
    /// The configurations a write can take: the kernel copy and renameat2 flags as on Linux's
    /// usual file systems, and the fallbacks used where they are missing.
    static let configurations: [(String, WriterConfiguration)] = [
        ("kernel copy, renameat2 flags", WriterConfiguration()),
        ("read/write loop, link fallbacks", WriterConfiguration(chunkSize: 64 << 10, bufferSize: 16 << 10, kernelCopy: false, renameFlags: false)),
        ("no renameat2 flags, no hard links", WriterConfiguration(renameFlags: false, hardLinks: false)),
    ]

    @Test func bytesSourceIsWrittenExactly() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let bytes = patternBytes(300_001)
        try AtomicWriter.write([ExportItem(destination: scratch.path("out.bin"), source: .bytes(bytes), overwrite: false)])
        #expect(readFile(scratch.path("out.bin")) == bytes)
        #expect(scratch.names() == ["out.bin"])
    }

    @Test(arguments: configurations)
    func fileSourceIsCopiedExactly(_ name: String, _ configuration: WriterConfiguration) throws {
        let scratch = ScratchDirectory("wharf-fw")
        let bytes = patternBytes(9 << 20 | 12_345)
        writeFile(scratch.path("source"), bytes)
        try AtomicWriter.write(
            [ExportItem(destination: scratch.path("copy"), source: .file(path: scratch.path("source")), overwrite: false)],
            progress: nil, cancellation: nil, configuration: configuration
        )
        #expect(readFile(scratch.path("copy")) == bytes)
        #expect(scratch.names() == ["source", "copy"])
    }

    @Test func fileSourceOnAnotherFileSystemIsCopiedExactly() throws {
        // /tmp and a tmpfs: copy_file_range refuses to cross (EXDEV), sendfile takes over.
        let scratch = ScratchDirectory("wharf-fw")
        let target = try scratch.tmpfs("tmpfs", size: 16 << 20)
        let bytes = patternBytes(5 << 20 | 7)
        writeFile(scratch.path("source"), bytes)
        try AtomicWriter.write([ExportItem(destination: target.appending("copy"), source: .file(path: scratch.path("source")), overwrite: false)])
        #expect(readFile(target.appending("copy")) == bytes)
    }

    @Test func emptySourcesProduceEmptyFiles() throws {
        let scratch = ScratchDirectory("wharf-fw")
        writeFile(scratch.path("empty-source"), [])
        try AtomicWriter.write([
            ExportItem(destination: scratch.path("from-bytes"), source: .bytes([]), overwrite: false),
            ExportItem(destination: scratch.path("from-file"), source: .file(path: scratch.path("empty-source")), overwrite: false),
        ])
        #expect(linkStatus(scratch.path("from-bytes"))?.kind == .regular)
        #expect(readFile(scratch.path("from-bytes")) == [])
        #expect(readFile(scratch.path("from-file")) == [])
        #expect(scratch.temporaries().isEmpty)
    }

    @Test func fileThatReportsSizeZeroIsStillReadToItsEnd() throws {
        // procfs files claim size 0; a kernel copy trusting that would write an empty file.
        let scratch = ScratchDirectory("wharf-fw")
        try AtomicWriter.write([ExportItem(destination: scratch.path("status"), source: .file(path: "/proc/self/status"), overwrite: false)])
        #expect(readText(scratch.path("status"))?.contains("Umask:") == true)
    }

    @Test func fifoSourceIsReadUntilItsWriterCloses() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let fifo = scratch.path("fifo")
        makeFIFO(fifo)
        let bytes = patternBytes(3 << 20)
        writeFile(scratch.path("data"), bytes)
        // `cat` feeds the FIFO from another process; the writer reads to its end.
        let feeder = try ChildProcess(path: "/bin/sh", arguments: ["-c", "cat \(scratch.path("data")) > \(fifo)"], mergeErrors: true)
        try AtomicWriter.write([ExportItem(destination: scratch.path("out"), source: .file(path: fifo), overwrite: false)])
        #expect(feeder.wait() == 0)
        #expect(readFile(scratch.path("out")) == bytes)
    }

    @Test func newFilesGetMode0666FilteredByTheUmask() throws {
        let scratch = ScratchDirectory("wharf-fw")
        try AtomicWriter.write([ExportItem(destination: scratch.path("f"), source: .bytes([1]), overwrite: false)])
        let mode = try FileStatus.of(scratch.path("f")).mode & 0o7777
        #expect(mode == 0o666 & ~UInt32(currentUmask()))
    }

    @Test func severalItemsAreAllWritten() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let other = scratch.makeDirectory("other")
        try AtomicWriter.write([
            ExportItem(destination: scratch.path("a.txt"), source: .bytes(Array("alpha".utf8)), overwrite: false),
            ExportItem(destination: scratch.path("b.txt"), source: .bytes(Array("beta".utf8)), overwrite: false),
            ExportItem(destination: other.appending("c.txt"), source: .bytes(Array("gamma".utf8)), overwrite: false),
        ])
        #expect(readText(scratch.path("a.txt")) == "alpha")
        #expect(readText(scratch.path("b.txt")) == "beta")
        #expect(readText(other.appending("c.txt")) == "gamma")
        #expect(scratch.temporaries().isEmpty && scratch.temporaries(in: other).isEmpty)
    }

    @Test func noItemsWriteNothing() throws {
        let scratch = ScratchDirectory("wharf-fw")
        try AtomicWriter.write([])
        #expect(scratch.names().isEmpty)
    }

    @Test(arguments: [
        ("relative/path.txt", "export to a relative path"),
        ("/tmp/", "export to a path that names no file"),
        ("/tmp/..", "export to a path that names no file"),
        ("/tmp/.wharf-tmp-123-0123456789abcdef", "export to a name reserved for temporary files"),
    ])
    func destinationsThatNameNoOrdinaryFileAreRefused(_ text: String, _ operation: String) {
        let destination = FilePath(text)!
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EINVAL, operation: operation, path: destination))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: true)])
        }
    }

    @Test func theSameDestinationTwiceIsRefusedAndNothingIsWritten() {
        let scratch = ScratchDirectory("wharf-fw")
        let again = scratch.path("./twice")
        #expect(throws: ExportError.failed(path: again, cause: SystemError(code: EINVAL, operation: "export two documents to", path: again))) {
            try AtomicWriter.write([
                ExportItem(destination: scratch.path("first"), source: .bytes([1]), overwrite: false),
                ExportItem(destination: scratch.path("twice"), source: .bytes([1]), overwrite: true),
                ExportItem(destination: again, source: .bytes([2]), overwrite: true),
            ])
        }
        #expect(scratch.names().isEmpty)
    }

    @Test func missingDestinationDirectoryFailsNamingTheFile() {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("nowhere/file")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: ENOENT, operation: "open directory", path: scratch.path("nowhere")))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: false)])
        }
    }

    /// The destination's directory is reached without following a symbolic link on the way (the
    /// dialog resolved it when the human chose it): one swapped in since, at the directory itself
    /// or above it, is refused, and where it leads is left untouched.
    @Test(arguments: ["linked/doc.txt", "linked/below/doc.txt"])
    func aSymlinkOnTheWayToTheDirectoryIsNeverFollowed(_ name: String) {
        let scratch = ScratchDirectory("wharf-fw")
        let elsewhere = scratch.makeDirectory("elsewhere")
        _ = scratch.makeDirectory("elsewhere/below")
        makeSymlink(elsewhere, at: scratch.path("linked"))
        let destination = scratch.path(name)
        let error = #expect(throws: ExportError.self) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes([1]), overwrite: false)])
        }
        guard case .failed(let path, let cause) = error else { Issue.record("expected a failure, got \(String(describing: error))"); return }
        #expect(path == destination)
        #expect(cause.code == ENOTDIR || cause.code == ELOOP)
        #expect(cause.operation == "open directory (never through a symbolic link)")
        #expect(scratch.names(in: elsewhere) == ["below"])
        #expect(scratch.names(in: elsewhere.appending("below")).isEmpty)
    }

    @Test func temporaryFileIsNeverCreatedThroughAPlantedSymlink() throws {
        // The writer's random names cannot be planted in advance; this checks the creation call
        // itself refuses a name that is a symlink, even a dangling one, and leaves it alone.
        let scratch = ScratchDirectory("wharf-fw")
        let victim = scratch.path("victim")
        makeSymlink(victim, at: scratch.path(".wharf-tmp-1-0000000000000000"))
        let directory = try Syscalls.openDirectory(scratch.path)
        #expect(throws: SystemError(code: EEXIST, operation: "create a temporary file in", path: scratch.path)) {
            try Syscalls.createExclusive(in: directory, ".wharf-tmp-1-0000000000000000", standingFor: scratch.path("doc"))
        }
        #expect(linkStatus(victim) == nil)
    }
}
