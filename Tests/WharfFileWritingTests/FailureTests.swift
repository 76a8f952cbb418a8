import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfFileWriting

/// Every failure leaves every destination exactly as it was, removes the temporary files, and
/// names the file and the cause.
///
/// The tests run as root, which ignores permission bits, so "cannot write here" is produced two
/// ways that hold for root too: a directory bind-mounted read-only onto itself (`EROFS`, in
/// process), and the write probe run as `nobody` through `setpriv` (`EACCES`). "Disk full" is a
/// 1 MiB tmpfs (`ENOSPC`) and, in the probe, `RLIMIT_FSIZE` with `SIGXFSZ` ignored (`EFBIG`).
struct FailureTests {
    @Test func readOnlyDirectoryFailsAndChangesNothing() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let directory = scratch.makeDirectory("ro")
        let destination = directory.appending("doc.txt")
        writeFile(destination, "old")
        try scratch.makeReadOnly(directory)
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EROFS, operation: "create a temporary file in", path: directory))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes(Array("new".utf8)), overwrite: true)])
        }
        #expect(readText(destination) == "old")
        #expect(scratch.names(in: directory) == ["doc.txt"])
    }

    @Test func directoryWithoutWritePermissionFailsForAnOrdinaryUser() throws {
        let scratch = ScratchDirectory("wharf-fw")
        setMode(scratch.path, 0o755)
        let directory = scratch.makeDirectory("root-owned")
        let destination = directory.appending("doc.txt")
        writeFile(destination, "old")
        let result = run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", Probe.path, "--overwrite", "--bytes", destination.description, "new",
        ])
        #expect(result.status == 1)
        #expect(result.output == "could not write \(destination): create a temporary file in \(directory): Permission denied\n")
        #expect(readText(destination) == "old")
        #expect(scratch.names(in: directory) == ["doc.txt"])
    }

    @Test func fullFileSystemFailsAndKeepsTheOldFile() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let small = try scratch.tmpfs("small", size: 1 << 20)
        let destination = small.appending("doc.bin")
        writeFile(destination, patternBytes(100_000))
        let error = #expect(throws: ExportError.self) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .bytes(patternBytes(2 << 20, seed: 2)), overwrite: true)])
        }
        guard case .failed(let path, let cause) = error else { Issue.record("expected a failure, got \(String(describing: error))"); return }
        #expect(path == destination)
        #expect(cause.code == ENOSPC)
        #expect(readFile(destination) == patternBytes(100_000))
        #expect(scratch.names(in: small) == ["doc.bin"])
    }

    @Test func fullFileSystemFailsForAFileSourceToo() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let small = try scratch.tmpfs("small", size: 1 << 20)
        writeFile(scratch.path("big"), patternBytes(3 << 20))
        let destination = small.appending("copy.bin")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: ENOSPC, operation: "write", path: destination))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .file(path: scratch.path("big")), overwrite: false)])
        }
        #expect(scratch.names(in: small).isEmpty)
    }

    @Test func fileThatCannotFitFailsBeforeItIsWritten() throws {
        // Reserving the blocks up front (fallocate) meets "no space" before any copying.
        let scratch = ScratchDirectory("wharf-fw")
        let small = try scratch.tmpfs("small", size: 1 << 20)
        writeFile(scratch.path("big"), patternBytes(3 << 20))
        let destination = small.appending("copy.bin")
        var configuration = WriterConfiguration()
        configuration.reserveSpaceInMemory = true
        let progressCalls = Locked(0)
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: ENOSPC, operation: "reserve space for", path: destination))) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .file(path: scratch.path("big")), overwrite: false)],
                progress: { _ in progressCalls.withValue { $0 += 1 } }, cancellation: nil, configuration: configuration
            )
        }
        #expect(progressCalls.withValue { $0 } == 0)
        #expect(scratch.names(in: small).isEmpty)
    }

    @Test func memoryBackedFileSystemsAreRecognised() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let memory = try scratch.tmpfs("memory", size: 1 << 20)
        for (path, expected) in [(memory, true), ("/proc", false)] as [(FilePath, Bool)] {
            let descriptor = try Syscalls.openDirectory(path)
            #expect(Syscalls.isMemoryBacked(descriptor) == expected, "\(path)")
        }
    }

    @Test(arguments: ["--base64", "--file"])
    func fileSizeLimitFailsWithFileTooLargeAndKeepsTheOldFile(_ form: String) throws {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc.bin")
        writeFile(destination, "old")
        // `--base64` hands the writer a bytes source (too big for a command-line argument).
        if form == "--base64" {
            writeFile(scratch.path("source"), Base64.encode(patternBytes(3 << 20)))
        } else {
            writeFile(scratch.path("source"), patternBytes(3 << 20))
        }
        let result = Probe.run(["--fsize-limit", "1048576", "--overwrite", form, destination.description, scratch.path("source").description])
        #expect(result.status == 1)
        #expect(result.output == "could not write \(destination): write \(destination): File too large\n")
        #expect(readText(destination) == "old")
        #expect(scratch.names() == ["doc.bin", "source"])
    }

    @Test func destinationDirectoryRemovedMidExportFailsAndLeavesNothing() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let directory = scratch.makeDirectory("vanishing")
        let destination = directory.appending("doc.bin")
        let error = #expect(throws: ExportError.self) {
            try AtomicWriter.write(
                [ExportItem(destination: destination, source: .bytes(patternBytes(3 << 20)), overwrite: false)],
                progress: { progress in
                    // Every byte is in the temporary file; now the folder goes away.
                    if progress.bytesWritten == progress.totalBytes { run("/bin/rm", ["-rf", directory.description]) }
                }
            )
        }
        guard case .failed(let path, let cause) = error else { Issue.record("expected a failure, got \(String(describing: error))"); return }
        #expect(path == destination)
        #expect(cause.code == ENOENT)
        #expect(linkStatus(directory) == nil)
        #expect(scratch.names().isEmpty)
    }

    @Test func unreadableSourceFailsNamingTheSource() {
        // Reading /proc/self/mem at offset 0 is a real read error (EIO), met mid-copy.
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc")
        writeFile(destination, "old")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EIO, operation: "read", path: "/proc/self/mem"))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .file(path: "/proc/self/mem"), overwrite: true)])
        }
        #expect(readText(destination) == "old")
        #expect(scratch.names() == ["doc"])
    }

    @Test func missingSourceFailsNamingTheSource() {
        let scratch = ScratchDirectory("wharf-fw")
        let destination = scratch.path("doc")
        let source = scratch.path("no-such-source")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: ENOENT, operation: "open", path: source))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .file(path: source), overwrite: false)])
        }
        #expect(scratch.names().isEmpty)
    }

    /// A passed descriptor is read with the rights it was opened with: one that only names its
    /// file (`O_PATH`) is not opened again to read what its sender could not.
    @Test func descriptorNotOpenForReadingIsRefused() throws {
        let scratch = ScratchDirectory("wharf-fw")
        let source = scratch.write("secret", "not the sender's to read")
        let destination = scratch.path("doc")
        let named = try FileDescriptor.open(source, 0o10_000_000)  // O_PATH
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EBADF, operation: "read the document", path: source))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .descriptor(named, label: source), overwrite: false)])
        }
        #expect(scratch.names() == ["secret"])
    }

    @Test func directorySourceFailsNamingTheSource() {
        let scratch = ScratchDirectory("wharf-fw")
        let source = scratch.makeDirectory("folder")
        let destination = scratch.path("doc")
        #expect(throws: ExportError.failed(path: destination, cause: SystemError(code: EISDIR, operation: "read", path: source))) {
            try AtomicWriter.write([ExportItem(destination: destination, source: .file(path: source), overwrite: false)])
        }
        #expect(scratch.names() == ["folder"])
    }

    @Test func errorsTellWhichFileAndWhy() {
        let error = ExportError.failed(path: "/home/a/doc.txt", cause: SystemError(code: ENOSPC, operation: "write", path: "/home/a/doc.txt"))
        #expect(error.description == "could not write /home/a/doc.txt: write /home/a/doc.txt: No space left on device")
        #expect(ExportError.exists(path: "/x").description == "/x already exists")
    }
}
