import Glibc
import WharfSystem

/// Copying across file systems: each item into a temporary name in the destination folder,
/// a folder with everything in it, with the permissions, owner and times it had, synced.
/// Bytes go with the exporter's ``ContentCopier``: `copy_file_range` first, which clones
/// (reflinks) instead of copying where the kernel can, as between two mounts of one btrfs or
/// XFS file system, which `rename` calls different file systems. Extended attributes and ACLs
/// are not carried over.
extension MoveTransaction {
    /// The bytes a move across file systems will copy for `entry`; a folder is walked, and
    /// anything in it that cannot be moved (a FIFO, a socket, a device) refuses the move now,
    /// before a byte is copied.
    func plannedBytes(of entry: MoveEntry) throws(MoveError) -> Int64 {
        switch entry.status.kind {
        case .regular: return entry.status.size
        case .directory: return try plannedBytes(inFolder: entry.sourceName, of: entry.sourceDirectory, path: entry.item.source)
        default: return 0
        }
    }

    private func plannedBytes(inFolder name: FilePath, of parent: FileDescriptor, path: FilePath) throws(MoveError) -> Int64 {
        var total: Int64 = 0
        let folder: FileDescriptor
        let names: [[UInt8]]
        do {
            folder = try parent.open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, reportedAs: path)
            names = try DirectoryEntries.names(in: folder)
        } catch {
            throw .failed(path, error)
        }
        defer { folder.close() }
        for child in names {
            let childPath = path.appending(child)
            let component = FilePath(unchecked: child)
            let found: FileStatus?
            do { found = try Syscalls.statusIfPresent(in: folder, component, reportedAs: childPath) }
            catch { throw .failed(childPath, error) }
            guard let status = found else { continue }
            switch status.kind {
            case .regular: total += status.size
            case .directory: total += try plannedBytes(inFolder: component, of: folder, path: childPath)
            case .symlink: break
            case .other: throw .unsupportedFileType(childPath, status.specialKindDescription)
            }
        }
        return total
    }

    /// Copies every item that crosses file systems into a temporary name in the folder.
    func stageCopies() throws(MoveError) {
        for entry in entries where entry.crossesFileSystems && entry.staged == nil {
            try checkCancelled()
            try stage(entry)
        }
    }

    /// Copies one item to a fresh temporary name in the destination folder, fully synced.
    func stage(_ entry: MoveEntry) throws(MoveError) {
        let source = entry.item.source
        for _ in 0..<100 {
            let name = claimTemporaryName(forDirectory: entry.isDirectory)
            var copy = TreeCopy(transaction: self, destination: entry.destination, origin: source, root: name)
            do throws(MoveError) {
                guard let inode = try copy.copy(entry.sourceName, in: entry.sourceDirectory, expected: entry.status,
                                                as: name, in: directory, path: source)
                else { continue }  // The name was taken (or a sweep took our file): draw another.
                entry.staged = StagedCopy(name: name, inode: inode)
                return
            } catch {
                if copy.created { FolderTree.remove(name, in: directory, reportedAs: entry.destination) }
                throw error
            }
        }
        throw .failed(entry.destination, SystemError(code: EEXIST, operation: "find a free temporary name in", path: folder))
    }
}

/// One item's copy across file systems, file by file; hard links within a folder stay links.
struct TreeCopy {
    let transaction: MoveTransaction
    /// The item's destination path, which errors writing the copy name.
    let destination: FilePath
    /// The source path of the item, which errors reading it name.
    let origin: FilePath
    /// The temporary name of the copy in the destination folder.
    let root: FilePath
    /// The top of the copy exists (and must be removed if the copy fails).
    private(set) var created = false
    /// Files with several names already copied, by source inode: where their copy is, relative
    /// to the destination folder, so that another name of theirs becomes a link to it.
    private var linked: [UInt64: [UInt8]] = [:]
    /// Where in the copy the current file lies, relative to the destination folder.
    private var relative: [UInt8] = []
    /// The first chunk of the item has been reported to the observer.
    private var reportedCopying = false

    init(transaction: MoveTransaction, destination: FilePath, origin: FilePath, root: FilePath) {
        self.transaction = transaction
        self.destination = destination
        self.origin = origin
        self.root = root
    }

    /// Copies `name` in `parent` (the source, at `path`) as `target` in `targetParent`; the
    /// copy's inode, or nil when `target` was taken. `expected` is what the source must still be.
    mutating func copy(
        _ name: FilePath, in parent: FileDescriptor, expected: FileStatus, as target: FilePath, in targetParent: FileDescriptor,
        path: FilePath
    ) throws(MoveError) -> UInt64? {
        let isTop = relative.isEmpty
        let saved = relative
        relative = isTop ? target.bytes : relative + [FilePath.slashByte] + target.bytes
        defer { relative = saved }
        try transaction.checkCancelled()
        switch expected.kind {
        case .regular:
            if expected.linkCount > 1, !isTop, let first = linked[expected.inode] {
                do {
                    try Syscalls.link(from: transaction.directory, FilePath(unchecked: first), to: targetParent, target, reportedAs: destination)
                } catch {
                    throw .failed(destination, error)
                }
                return expected.inode
            }
            let inode = try copyFile(name, in: parent, expected: expected, as: target, in: targetParent, path: path)
            if inode != nil, expected.linkCount > 1 { linked[expected.inode] = relative }
            return inode
        case .symlink:
            return try copySymlink(name, in: parent, expected: expected, as: target, in: targetParent, path: path)
        case .directory:
            return try copyFolder(name, in: parent, expected: expected, as: target, in: targetParent, path: path)
        case .other:
            throw .unsupportedFileType(path, expected.specialKindDescription)
        }
    }

    private mutating func copyFile(
        _ name: FilePath, in parent: FileDescriptor, expected: FileStatus, as target: FilePath, in targetParent: FileDescriptor,
        path: FilePath
    ) throws(MoveError) -> UInt64? {
        let source: FileDescriptor
        do { source = try parent.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, reportedAs: path) }
        catch { throw .failed(path, error) }
        defer { source.close() }
        let before: (FileStatus, FileTimes)
        do { before = try Syscalls.statusAndTimes(of: source) }
        catch { throw .failed(path, error) }
        guard before.0.inode == expected.inode, before.0.device == expected.device, before.0.kind == .regular else {
            throw .sourceChanged(path)
        }

        let file: FileDescriptor
        do {
            file = try targetParent.open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600, reportedAs: destination)
        } catch {
            if error.code == EEXIST && relative == target.bytes { return nil }
            throw .failed(destination, SystemError(code: error.code, operation: "create a temporary file in", path: transaction.folder))
        }
        defer { file.close() }
        if relative == target.bytes { created = true }
        let inode: UInt64
        do {
            // A sweep in another process (or pid namespace) leaves a locked file alone; one
            // that got to the file before the lock has unlinked it: then draw another name.
            if relative == target.bytes {
                try Syscalls.lock(file)
                let status = try file.status()
                if status.linkCount == 0 { created = false; return nil }
                inode = status.inode
            } else {
                inode = try file.status().inode
            }
        } catch {
            throw .failed(destination, error)
        }

        if before.0.size > 0, transaction.configuration.reserveSpace, !transaction.isMemoryBacked,
           let code = Syscalls.reserveSpace(file, count: before.0.size), [ENOSPC, EDQUOT, EFBIG].contains(code) {
            throw .failed(destination, SystemError(code: code, operation: "reserve space for", path: destination))
        }
        let copier = ContentCopier(configuration: transaction.configuration, cancellation: transaction.cancellation)
        var reported = reportedCopying
        let observer = transaction.observer
        let destination = destination
        do throws(ContentCopier.Failure) {
            try copier.copy(
                source, into: file, kernelCopy: transaction.configuration.kernelCopy && before.0.size > 0, waits: false,
                progress: &transaction.progress,
                afterChunk: {
                    guard !reported else { return }
                    reported = true
                    observer?(.copying(destination))
                }
            )
        } catch {
            switch error {
            case .cancelled: throw .cancelled
            case .failed(let cause): throw .failed(cause.path == path.description ? path : destination, cause.description)
            }
        }
        reportedCopying = reported

        // A file written to while it was copied would lose what was written after the copy:
        // it fails the move instead.
        let after: (FileStatus, FileTimes)
        do { after = try Syscalls.statusAndTimes(of: source) }
        catch { throw .failed(path, error) }
        guard after.0.size == before.0.size, after.1.modified == before.1.modified, after.1.changed == before.1.changed else {
            throw .sourceChanged(path)
        }
        do throws(SystemError) {
            try keepAttributes(before.0, before.1, on: file)
            try file.sync()
        } catch {
            throw .failed(destination, error)
        }
        return inode
    }

    private mutating func copySymlink(
        _ name: FilePath, in parent: FileDescriptor, expected: FileStatus, as target: FilePath, in targetParent: FileDescriptor,
        path: FilePath
    ) throws(MoveError) -> UInt64? {
        let contents: [UInt8]
        do { contents = try Syscalls.readLink(in: parent, name, reportedAs: path) }
        catch { throw .failed(path, error) }
        do {
            try Syscalls.makeSymlink(contents, in: targetParent, target, reportedAs: destination)
        } catch {
            if error.code == EEXIST && relative == target.bytes { return nil }
            throw .failed(destination, error)
        }
        if relative == target.bytes { created = true }
        do throws(SystemError) {
            let times = try Syscalls.statusAndTimes(in: parent, name, reportedAs: path)
            guard let (status, sourceTimes) = times, status.inode == expected.inode else { throw SystemError(code: ESTALE, operation: "read", path: path) }
            try? Syscalls.changeLinkOwner(in: targetParent, target, owner: status.owner, group: status.group, reportedAs: destination)
            try? Syscalls.setLinkTimes(in: targetParent, target, sourceTimes, reportedAs: destination)
            guard let copy = try Syscalls.statusIfPresent(in: targetParent, target, reportedAs: destination) else {
                throw SystemError(code: ENOENT, operation: "copy", path: destination)
            }
            return copy.inode
        } catch {
            if error.code == ESTALE { throw .sourceChanged(path) }
            throw .failed(destination, error)
        }
    }

    /// A folder: made private (0700) while it fills, then given the source's permissions,
    /// owner and times, and synced. A folder whose entries changed while it was copied fails
    /// the move: removing the original would lose what was added.
    private mutating func copyFolder(
        _ name: FilePath, in parent: FileDescriptor, expected: FileStatus, as target: FilePath, in targetParent: FileDescriptor,
        path: FilePath
    ) throws(MoveError) -> UInt64? {
        let source: FileDescriptor
        let before: (FileStatus, FileTimes)
        let names: [[UInt8]]
        do {
            source = try parent.open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, reportedAs: path)
            before = try Syscalls.statusAndTimes(of: source)
            names = try DirectoryEntries.names(in: source)
        } catch {
            throw .failed(path, error)
        }
        defer { source.close() }
        guard before.0.inode == expected.inode, before.0.device == expected.device else { throw .sourceChanged(path) }

        do {
            try Syscalls.makeDirectory(in: targetParent, target, mode: 0o700, reportedAs: destination)
        } catch {
            if error.code == EEXIST && relative == target.bytes { return nil }
            throw .failed(destination, error)
        }
        if relative == target.bytes { created = true }
        let folder: FileDescriptor
        let inode: UInt64
        do {
            folder = try targetParent.open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, reportedAs: destination)
            inode = try folder.status().inode
            // Marks the folder as in use for a sweep in another pid namespace; held until the
            // move ends.
            if relative == target.bytes {
                try Syscalls.lock(folder)
                transaction.holdUntilEnd(folder)
            }
        } catch {
            throw .failed(destination, error)
        }
        for child in names {
            let component = FilePath(unchecked: child)
            let childPath = path.appending(child)
            let found: FileStatus?
            do { found = try Syscalls.statusIfPresent(in: source, component, reportedAs: childPath) }
            catch { throw .failed(childPath, error) }
            guard let status = found else { throw .sourceChanged(childPath) }
            guard try copy(component, in: source, expected: status, as: component, in: folder, path: childPath) != nil else {
                throw .failed(destination, SystemError(code: EEXIST, operation: "copy", path: childPath))
            }
        }
        do throws(SystemError) {
            let after = try Syscalls.statusAndTimes(of: source)
            guard after.1.modified == before.1.modified, after.1.changed == before.1.changed else { throw SystemError(code: ESTALE, operation: "copy", path: path) }
            try keepAttributes(before.0, before.1, on: folder)
            try folder.sync()
        } catch {
            if error.code == ESTALE { throw .sourceChanged(path) }
            throw .failed(destination, error)
        }
        if relative != target.bytes { folder.close() }
        return inode
    }

    /// The owner and group where this process may (the group alone if only that is allowed),
    /// then the permissions (after, since a change of owner clears set-id bits), then the
    /// times (last, since the rest changes them). A file system without owners keeps its own.
    private func keepAttributes(_ status: FileStatus, _ times: FileTimes, on file: FileDescriptor) throws(SystemError) {
        if (try? Syscalls.changeOwner(file, owner: status.owner, group: status.group)) == nil {
            try? Syscalls.changeOwner(file, owner: nil, group: status.group)
        }
        try? Syscalls.changeMode(file, mode_t(status.mode & 0o7777))
        try Syscalls.setTimes(file, times)
    }
}
