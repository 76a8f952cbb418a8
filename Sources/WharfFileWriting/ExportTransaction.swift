import Glibc
import WharfSystem

/// One export in flight: everything needed to finish it, or to undo it.
///
/// Used by one thread from start to end (only the cancellation flag is shared), so it holds
/// plain mutable state.
final class ExportTransaction {
    let configuration: WriterConfiguration
    let cancellation: ExportCancellation?
    let items: [ExportItem]
    var progress: ProgressReporter
    private let progressCallback: (@Sendable (ExportProgress) -> Void)?

    /// Destination directories, opened once each; every later step works relative to these
    /// descriptors, so a directory renamed or replaced mid-export cannot redirect the writes.
    var directories: [FilePath: DirectoryHandle] = [:]
    var entries: [ExportEntry] = []
    /// Temporary and backup names claimed in `LiveTemporaries`, released when we are done.
    private var claimedNames: [String] = []

    init(
        items: [ExportItem],
        progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?,
        configuration: WriterConfiguration
    ) {
        self.items = items
        self.cancellation = cancellation
        self.configuration = configuration
        progressCallback = progress
        self.progress = ProgressReporter(total: 0, callback: nil, configuration: configuration)
    }

    /// Closes every descriptor (which releases the temporary files' locks) and gives the
    /// claimed names back. Runs once the export has ended either way.
    private func close() {
        for entry in entries { entry.close() }
        for directory in directories.values { directory.close() }
        LiveTemporaries.release(claimedNames)
        claimedNames = []
    }

    /// A fresh temporary name, protected from this process's own orphan sweeps until the end.
    func claimTemporaryName() -> FilePath {
        let name = LiveTemporaries.claimNew()
        claimedNames.append(name)
        return FilePath(unchecked: Array(name.utf8))
    }

    func run() throws(ExportError) {
        defer { close() }
        do throws(ExportError) {
            try prepare()
            try writeTemporaries()
            progress.finish()
            try publishAll()
            try syncDirectories()
        } catch {
            abandon()
            throw error
        }
        commit()
    }

    func checkCancelled() throws(ExportError) {
        if cancellation?.isCancelled == true { throw .cancelled }
    }

    // MARK: Preparing

    /// Opens every directory and source and refuses what cannot work before a byte is written:
    /// a bad destination path, an existing file without `overwrite`, a directory in the way,
    /// a source that cannot be opened.
    private func prepare() throws(ExportError) {
        var seen = Set<FilePath>()
        var total: Int64 = 0
        for item in items {
            let destination = item.destination
            let name = destination.lastComponent
            func invalid(_ why: String) -> ExportError {
                .failed(path: destination, cause: SystemError(code: EINVAL, operation: why, path: destination))
            }
            guard destination.isAbsolute else { throw invalid("export to a relative path") }
            guard destination.bytes.last != UInt8(ascii: "/"), name != [0x2E], name != [0x2E, 0x2E] else {
                throw invalid("export to a path that names no file")
            }
            guard TemporaryName.owner(of: name) == nil else {
                throw invalid("export to a name reserved for temporary files")
            }
            guard seen.insert(destination.normalized).inserted else {
                throw invalid("export two documents to")
            }

            let directory = try directory(for: destination)
            let nameInDirectory = FilePath(unchecked: name)
            let existing: FileStatus?
            do { existing = try Syscalls.statusIfPresent(in: directory.descriptor, nameInDirectory, reportedAs: destination) }
            catch { throw .failed(path: destination, cause: error) }
            if let existing {
                guard item.overwrite else { throw .exists(path: destination) }
                if existing.kind == .directory {
                    throw .failed(path: destination, cause: SystemError(code: EISDIR, operation: "replace", path: destination))
                }
            }

            let entry = ExportEntry(item: item, directory: directory, name: nameInDirectory)
            if existing?.kind == .regular { entry.replacing = existing }
            entries.append(entry)
            switch item.source {
            case .bytes(let bytes):
                entry.source = .bytes(bytes)
                entry.expectedSize = Int64(bytes.count)
                total += Int64(bytes.count)
            case .file, .descriptor:
                let (descriptor, path): (FileDescriptor, FilePath)
                do { (descriptor, path) = try Self.openSource(item.source) }
                catch { throw .failed(path: destination, cause: error) }
                entry.source = .file(descriptor: descriptor, path: path, kernelCopy: false, waits: true)
                let status: FileStatus
                do { status = try descriptor.status() }
                catch { throw .failed(path: destination, cause: error) }
                switch status.kind {
                case .directory:
                    throw .failed(path: destination, cause: SystemError(code: EISDIR, operation: "read", path: path))
                case .regular:
                    entry.expectedSize = status.size
                    total += status.size
                    // Files that claim to be empty (procfs, sysfs) may still have contents the
                    // kernel copy would not see; only the read loop is trusted with them.
                    let kernelCopy = configuration.kernelCopy && status.size > 0
                    entry.source = .file(descriptor: descriptor, path: path, kernelCopy: kernelCopy, waits: false)
                default:
                    break  // A FIFO or device: read to its end, size unknown beforehand.
                }
            }
        }
        progress = ProgressReporter(total: total, callback: progressCallback, configuration: configuration)
    }

    /// A descriptor of the source to read from its start, and the path that names it.
    private static func openSource(_ source: ExportSource) throws(SystemError) -> (FileDescriptor, FilePath) {
        switch source {
        case .file(let path):
            // Never waits for a FIFO's writer; the copy waits in `poll`, cancellably.
            return (try Syscalls.openForReading(path), path)
        case .descriptor(let given, let label):
            // A regular file again through a description of our own, so neither its offset
            // nor the client's moves the other; anything else as it is. Only one opened for
            // reading: reopening an `O_PATH` one would read what its sender could not.
            guard given.isOpenForReading else { throw SystemError(code: EBADF, operation: "read the document", path: label) }
            if try given.status().kind == .regular, let own = try? given.reopen(O_RDONLY) { return (own, label) }
            return (try given.duplicate(), label)
        case .bytes:
            preconditionFailure("bytes are not opened")
        }
    }

    private func directory(for destination: FilePath) throws(ExportError) -> DirectoryHandle {
        let path = destination.directory
        if let open = directories[path] { return open }
        let descriptor: FileDescriptor
        // Never through a symbolic link: the dialog resolved the chosen folder once, when the
        // human chose it, and a folder on the way swapped for a link since then must not lead
        // the write (and the grant of what was written) somewhere the human never chose.
        do { descriptor = try Syscalls.openDirectoryWithoutLinks(path) }
        catch { throw .failed(path: destination, cause: error) }
        let handle = DirectoryHandle(path: path, descriptor: descriptor)
        directories[path] = handle
        return handle
    }

    // MARK: Writing

    private func writeTemporaries() throws(ExportError) {
        for entry in entries {
            try checkCancelled()
            let temporary = try createTemporary(for: entry)
            entry.temporary = temporary
            if let replacing = entry.replacing { Self.keepAttributes(of: replacing, on: temporary.descriptor) }
            try copyContents(of: entry, into: temporary.descriptor)
            do { try temporary.descriptor.sync() }
            catch { throw .failed(path: entry.item.destination, cause: error) }
        }
    }

    /// Gives the new file the permissions of the file it replaces (before a byte is written:
    /// a private document saved over stays private from the start, not 0666 less the umask),
    /// and its owner and group where this process may (its group alone if only that is
    /// allowed). Set-id bits are not carried over to new contents. Best effort: a file system
    /// without these notions keeps what it gives.
    private static func keepAttributes(of replaced: FileStatus, on file: FileDescriptor) {
        if (try? Syscalls.changeOwner(file, owner: replaced.owner, group: replaced.group)) == nil {
            try? Syscalls.changeOwner(file, owner: nil, group: replaced.group)
        }
        try? Syscalls.changeMode(file, mode_t(replaced.mode & 0o777))
    }

    /// A new, empty, locked file under a fresh temporary name next to the destination.
    ///
    /// The `flock` marks it as in use for an orphan sweep running in another process (even one
    /// in another pid namespace, which cannot judge our pid). A sweep that got to the file
    /// between its creation and our lock has unlinked it; then the name is simply retried.
    private func createTemporary(for entry: ExportEntry) throws(ExportError) -> TemporaryFile {
        let destination = entry.item.destination
        let directory = entry.directory
        for _ in 0..<100 {
            let name = claimTemporaryName()
            let descriptor: FileDescriptor
            do {
                descriptor = try Syscalls.createExclusive(in: directory.descriptor, name, standingFor: destination)
            } catch {
                if error.code == EEXIST { continue }  // Taken, or something planted there.
                throw .failed(path: destination, cause: error)
            }
            let temporary = TemporaryFile(name: name, descriptor: descriptor)
            do {
                try Syscalls.lock(descriptor)
                let status = try descriptor.status()
                temporary.inode = status.inode
                if status.linkCount > 0 { return temporary }
                temporary.holds = .nothing
                temporary.close()
            } catch {
                entry.temporary = temporary  // So that abandoning removes it.
                throw .failed(path: destination, cause: error)
            }
        }
        throw .failed(
            path: destination,
            cause: SystemError(code: EEXIST, operation: "find a free temporary name in", path: directory.path)
        )
    }

    // MARK: Undoing

    /// Puts every destination back as it was and removes every temporary file. Best effort:
    /// a step that fails does not stop the others. A temporary name still holding a replaced
    /// file's old contents (both ways of putting it back failed) is left as it is: it is the
    /// only copy of what the person had, and removing a file is never how an export undoes.
    private func abandon() {
        for entry in entries.reversed() {
            if let publication = entry.publication { rollBack(entry, publication) }
        }
        for entry in entries {
            guard let temporary = entry.temporary, temporary.holds == .newContents else { continue }
            try? Syscalls.unlink(in: entry.directory.descriptor, temporary.name, reportedAs: entry.item.destination)
            temporary.holds = .nothing
        }
        for directory in directories.values where directory.changed {
            try? directory.descriptor.sync()
        }
    }
}

/// An open destination directory.
final class DirectoryHandle {
    let path: FilePath
    let descriptor: FileDescriptor
    /// A name in it was created, renamed or removed: it needs an `fsync` to make that durable.
    var changed = false
    /// tmpfs or ramfs: no disk behind it, so no point in reserving blocks.
    let isMemoryBacked: Bool

    init(path: FilePath, descriptor: FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
        isMemoryBacked = Syscalls.isMemoryBacked(descriptor)
    }

    func close() { descriptor.close() }
}

/// A temporary file being written, and what its name holds now.
final class TemporaryFile {
    enum Contents { case newContents, oldContents, nothing }

    let name: FilePath
    let descriptor: FileDescriptor
    var inode: UInt64 = 0
    /// `.newContents` until renamed into place; `.oldContents` after an exchange put the
    /// replaced file under this name; `.nothing` once the name is gone.
    var holds = Contents.newContents

    init(name: FilePath, descriptor: FileDescriptor) {
        self.name = name
        self.descriptor = descriptor
    }

    /// Closing also releases the `flock`.
    func close() { descriptor.close() }
}

/// One item of the export and the state of its journey to the destination.
final class ExportEntry {
    enum Source {
        case none
        case bytes([UInt8])
        /// `waits`: a pipe, socket or device, whose reads wait for a writer that may never
        /// come; the copy looks at the cancellation flag while it waits.
        case file(descriptor: FileDescriptor, path: FilePath, kernelCopy: Bool, waits: Bool)
    }

    /// How the file reached its destination, which says how to undo it.
    enum Publication {
        /// Nothing was at the destination; undo removes our file.
        case created
        /// The old file was swapped to the temporary name; undo swaps back.
        case exchanged
        /// The old file is kept under `backup` (a hard link, or moved there); undo renames it back.
        case replaced(backup: FilePath)
    }

    let item: ExportItem
    let directory: DirectoryHandle
    /// The destination's name in its directory.
    let name: FilePath
    var source = Source.none
    /// The size the source had when opened; 0 when unknown (a FIFO) or empty.
    var expectedSize: Int64 = 0
    var temporary: TemporaryFile?
    var publication: Publication?
    /// The regular file at the destination when the export began, which the new one replaces.
    var replacing: FileStatus?

    init(item: ExportItem, directory: DirectoryHandle, name: FilePath) {
        self.item = item
        self.directory = directory
        self.name = name
    }

    func close() {
        temporary?.close()
        if case .file(let descriptor, _, _, _) = source { descriptor.close() }
        source = .none
    }
}
