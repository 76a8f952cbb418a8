import Glibc
import WharfSystem

/// Error codes with which a file system says it does not support a `renameat2` flag.
private let unsupportedFlagCodes: Set<Int32> = [EINVAL, ENOSYS, EOPNOTSUPP]

/// One move in flight: everything needed to finish it, or to undo it.
///
/// The order is what makes it safe. Nothing is changed until every source was examined and
/// every name chosen; copies across file systems are complete and synced under temporary names
/// before anything takes a real name; originals are only set aside (renamed to temporary names,
/// which undoing renames back) once every item is durably in its new place, and only removed
/// once that too is durable. Used by one thread from start to end (only the cancellation flag
/// is shared).
final class MoveTransaction {
    let folder: FilePath
    let resolution: MoveConflictResolution
    let configuration: WriterConfiguration
    let cancellation: ExportCancellation?
    let observer: (@Sendable (MoveStep) -> Void)?
    let progressCallback: (@Sendable (ExportProgress) -> Void)?
    var progress: ProgressReporter

    /// The destination folder, opened once: every later step works relative to it.
    var directory: FileDescriptor!
    var entries: [MoveEntry] = []
    /// Source folders by path, opened once each.
    private var sourceDirectories: [FilePath: FileDescriptor] = [:]
    /// Source folders a name was renamed out of or into, which need an `fsync`.
    private var changedSources: [ObjectIdentifier: FileDescriptor] = [:]
    /// Temporary names claimed in `LiveTemporaries`, released when the move has ended.
    private var claimedNames: [String] = []
    /// Descriptors kept open until the move ends (a staged folder's, whose `flock` marks it
    /// as in use for an orphan sweep in another process).
    private var held: [FileDescriptor] = []
    /// The folder keeps files in memory (tmpfs): no point in reserving blocks.
    private(set) var isMemoryBacked = false

    init(
        folder: FilePath, resolution: MoveConflictResolution, progress: (@Sendable (ExportProgress) -> Void)?,
        cancellation: ExportCancellation?, observer: (@Sendable (MoveStep) -> Void)?, configuration: WriterConfiguration
    ) {
        self.folder = folder.normalized
        self.resolution = resolution
        self.cancellation = cancellation
        self.observer = observer
        self.configuration = configuration
        progressCallback = progress
        self.progress = ProgressReporter(total: 0, callback: nil, configuration: configuration)
    }

    func run(_ items: [MoveItem]) throws(MoveError) -> [FilePath] {
        defer { close() }
        do throws(MoveError) {
            try prepare(items)
            observer?(.prepared)
            if entries.contains(where: { $0.crossesFileSystems }) {
                try stageCopies()
                progress.finish()
                observer?(.copied)
            }
            try placeAll()
            try syncAfterPlacing()
            observer?(.synced)
            try setAsideOriginals()
            try syncSources()
        } catch {
            abandon()
            throw error
        }
        observer?(.committed)
        commit()
        return entries.map(\.destination)
    }

    func checkCancelled() throws(MoveError) {
        if cancellation?.isCancelled == true { throw .cancelled }
    }

    /// A fresh temporary name (for a folder, one an orphan sweep removes whole), protected from
    /// this process's own sweeps until the end.
    func claimTemporaryName(forDirectory: Bool = false) -> FilePath {
        let name = LiveTemporaries.claimNew(prefix: forDirectory ? TemporaryName.directoryPrefix : TemporaryName.prefix)
        claimedNames.append(name)
        return FilePath(unchecked: Array(name.utf8))
    }

    func holdUntilEnd(_ descriptor: FileDescriptor) {
        held.append(descriptor)
    }

    private func close() {
        for descriptor in held { descriptor.close() }
        for descriptor in sourceDirectories.values { descriptor.close() }
        directory?.close()
        LiveTemporaries.release(claimedNames)
        claimedNames = []
    }

    // MARK: Preparing

    /// Examines every source and chooses every name before anything changes: a source that
    /// is not the one granted, a FIFO or socket, a folder moved into itself, a name taken
    /// (with `.fail`) are refused here.
    private func prepare(_ items: [MoveItem]) throws(MoveError) {
        directory = try FileMover.openFolder(folder)
        isMemoryBacked = Syscalls.isMemoryBacked(directory)
        let folderDevice: UInt64
        do { folderDevice = try directory.status().device }
        catch { throw .failed(folder, error) }
        var reserved = Set<[UInt8]>()
        var total: Int64 = 0
        for item in items {
            let source = item.source
            let sourceName = source.lastComponent
            guard source.isAbsolute, sourceName != [0x2E], sourceName != [0x2E, 0x2E], sourceName != [FilePath.slashByte] else {
                throw .failed(source, SystemError(code: EINVAL, operation: "move a path that names no file", path: source))
            }
            var name = item.requestedName
            try FileMover.checkName(name, for: source)
            let sourceDirectory = try openSourceDirectory(source.directory, for: source)
            let component = FilePath(unchecked: sourceName)
            let found: FileStatus?
            do { found = try Syscalls.statusIfPresent(in: sourceDirectory, component, reportedAs: source) }
            catch { throw .failed(source, error) }
            guard let status = found else {
                throw .failed(source, SystemError(code: ENOENT, operation: "move", path: source))
            }
            if let expected = item.expected {
                let identity: FileIdentity
                do { identity = try sourceDirectory.identity(status: status) }
                catch { throw .failed(source, error) }
                guard identity.sameFile(as: expected) else { throw .sourceChanged(source) }
            }
            if status.isSpecial { throw .unsupportedFileType(source, status.specialKindDescription) }
            if status.kind == .directory && source.normalized.contains(folder) {
                throw .failed(source, SystemError(code: EINVAL, operation: "move a folder into itself:", path: folder))
            }

            let alreadyThere = source.directory.normalized == folder && sourceName == name
            var replacing = false
            if !alreadyThere {
                if reserved.contains(name) {
                    guard resolution == .keepBoth else { throw .nameConflict(folder.appending(name)) }
                    name = try FileMover.freeName(for: name, in: directory, folder: folder, reserved: reserved)
                } else if try FileMover.isTaken(name, in: directory, folder: folder) {
                    switch resolution {
                    case .fail: throw .nameConflict(folder.appending(name))
                    case .keepBoth: name = try FileMover.freeName(for: name, in: directory, folder: folder, reserved: reserved)
                    case .replace: replacing = true
                    }
                }
            } else if reserved.contains(name) {
                throw .nameConflict(folder.appending(name))
            }
            reserved.insert(name)

            let entry = MoveEntry(
                item: item, sourceDirectory: sourceDirectory, sourceName: component, status: status,
                name: FilePath(unchecked: name), destination: folder.appending(name)
            )
            entry.alreadyThere = alreadyThere
            entry.replacing = replacing
            entry.crossesFileSystems = !alreadyThere && status.device != folderDevice
            if entry.crossesFileSystems { total += try plannedBytes(of: entry) }
            entries.append(entry)
        }
        progress = ProgressReporter(total: total, callback: progressCallback, configuration: configuration)
    }

    private func openSourceDirectory(_ path: FilePath, for source: FilePath) throws(MoveError) -> FileDescriptor {
        if let open = sourceDirectories[path] { return open }
        let descriptor: FileDescriptor
        do { descriptor = try Syscalls.openDirectoryWithoutLinks(path) }
        catch { throw .failed(source, error) }
        sourceDirectories[path] = descriptor
        return descriptor
    }

    // MARK: Placing

    private func placeAll() throws(MoveError) {
        for entry in entries where !entry.alreadyThere {
            try checkCancelled()
            try place(entry)
            observer?(.placed(entry.destination))
        }
    }

    /// Puts one item under its name in the folder, in a way that can be undone, and makes sure
    /// a renamed item is the one examined at the start: a source swapped since (between `lstat`
    /// and `rename`) goes back and fails the move.
    private func place(_ entry: MoveEntry) throws(MoveError) {
        try placeUnchecked(entry)
        guard entry.placement == .renamed else { return }
        let now = try? Syscalls.statusIfPresent(in: directory, entry.name, reportedAs: entry.destination)
        if let now, now.inode == entry.status.inode, now.device == entry.status.device { return }
        if (try? renameWithoutReplacing(from: directory, entry.name, to: entry.sourceDirectory, entry.sourceName, reportedAs: entry.item.source)) != nil {
            entry.placement = nil
        }
        throw .sourceChanged(entry.item.source)
    }

    /// Whatever is at the name may change under us (appear, vanish); a few rounds settle any
    /// such race, each step being atomic on its own. A rename that finds the source on another
    /// file system after all (a bind mount of the same device) copies it first.
    private func placeUnchecked(_ entry: MoveEntry) throws(MoveError) {
        for _ in 0..<8 {
            if entry.crossesFileSystems && entry.staged == nil { try stage(entry) }
            if entry.replacing {
                switch try replace(entry) {
                case .placed: return
                case .crossing: continue
                case .nothingThere: break
                }
            }
            do throws(SystemError) {
                try moveIntoPlace(entry, replacing: false)
                return
            } catch where error.code == EXDEV && !entry.crossesFileSystems {
                entry.crossesFileSystems = true
            } catch where error.code == EEXIST {
                switch resolution {
                case .fail: throw .nameConflict(entry.destination)
                case .keepBoth:
                    let reserved = Set(entries.map(\.name.bytes))
                    let name = try FileMover.freeName(for: entry.item.requestedName, in: directory, folder: folder, reserved: reserved)
                    entry.name = FilePath(unchecked: name)
                    entry.destination = folder.appending(name)
                case .replace: entry.replacing = true
                }
            } catch {
                throw failure(entry, error)
            }
        }
        throw .failed(entry.destination, SystemError(code: EAGAIN, operation: "move (the name kept changing)", path: entry.destination))
    }

    /// What one attempt at replacing came to.
    private enum Attempt { case placed, nothingThere, crossing }

    /// One attempt at replacing what is at the entry's name.
    private func replace(_ entry: MoveEntry) throws(MoveError) -> Attempt {
        let existing: FileStatus?
        do { existing = try Syscalls.statusIfPresent(in: directory, entry.name, reportedAs: entry.destination) }
        catch { throw .failed(entry.destination, error) }
        guard let existing else { return .nothingThere }
        // A file is kept under a second hard link, and then replaced in one rename, so the name
        // never goes missing; a folder (or a file where links are refused, or a file a folder
        // replaces, which rename cannot do in one step) is renamed aside first.
        guard existing.kind != .directory && !entry.isDirectory && configuration.hardLinks else { return try replaceAside(entry) }
        let backup = claimTemporaryName()
        do throws(SystemError) {
            try Syscalls.link(in: directory, entry.name, to: backup, reportedAs: entry.destination)
        } catch {
            if error.code == ENOENT { return .nothingThere }
            if error.code == EEXIST { return try replace(entry) }  // Our backup name was taken: draw another.
            return try replaceAside(entry)
        }
        entry.backup = .link(backup)
        do throws(SystemError) {
            try moveIntoPlace(entry, replacing: true)
        } catch {
            try? Syscalls.unlink(in: directory, backup, reportedAs: entry.destination)
            entry.backup = nil
            if error.code == EXDEV && !entry.crossesFileSystems {
                entry.crossesFileSystems = true
                return .crossing
            }
            throw failure(entry, error)
        }
        return .placed
    }

    private func replaceAside(_ entry: MoveEntry) throws(MoveError) -> Attempt {
        let aside = FilePath(unchecked: Array(TemporaryName.makeAside().utf8))
        do throws(SystemError) {
            try renameWithoutReplacing(from: directory, entry.name, to: directory, aside, reportedAs: entry.destination)
        } catch {
            if error.code == ENOENT { return .nothingThere }
            throw .failed(entry.destination, error)
        }
        entry.backup = .aside(aside)
        do throws(SystemError) {
            try moveIntoPlace(entry, replacing: false)
        } catch {
            try? renameWithoutReplacing(from: directory, aside, to: directory, entry.name, reportedAs: entry.destination)
            entry.backup = nil
            if error.code == EXDEV && !entry.crossesFileSystems {
                entry.crossesFileSystems = true
                return .crossing
            }
            if error.code == EEXIST {
                throw .failed(entry.destination, SystemError(code: EAGAIN, operation: "replace (it kept changing)", path: entry.destination))
            }
            throw failure(entry, error)
        }
        return .placed
    }

    /// A failed rename, told about the file it concerns: the source when it was renamed itself,
    /// the destination when its copy was.
    private func failure(_ entry: MoveEntry, _ error: SystemError) -> MoveError {
        .failed(entry.crossesFileSystems ? entry.destination : entry.item.source, error)
    }

    /// Renames the item (its source within one file system, its staged copy across) to its
    /// name: without replacing anything, or with `replacing`, over the file a hard link keeps.
    private func moveIntoPlace(_ entry: MoveEntry, replacing: Bool) throws(SystemError) {
        if !entry.crossesFileSystems {
            try rename(from: entry.sourceDirectory, entry.sourceName, to: directory, entry.name, replacing: replacing, reportedAs: entry.item.source)
            entry.placement = .renamed
            changedSources[ObjectIdentifier(entry.sourceDirectory)] = entry.sourceDirectory
            return
        }
        let staged = entry.staged!
        try rename(from: directory, staged.name, to: directory, entry.name, replacing: replacing, reportedAs: entry.destination)
        entry.placement = .copied
    }

    private func rename(
        from source: FileDescriptor, _ from: FilePath, to destination: FileDescriptor, _ to: FilePath, replacing: Bool, reportedAs path: FilePath
    ) throws(SystemError) {
        if replacing {
            try Syscalls.rename(from: source, from, to: destination, to, reportedAs: path)
            return
        }
        try renameWithoutReplacing(from: source, from, to: destination, to, reportedAs: path)
    }

    /// Renames `from` to `to` only if nothing is at `to`, not even a dangling symlink:
    /// `RENAME_NOREPLACE`, or where the file system rejects that flag (NFS, some FUSE file
    /// systems), a file is linked to its new name (which fails with `EEXIST` just the same) and
    /// its old name removed; a crash between the two leaves it under both, never neither. A
    /// folder, which cannot be linked, or a file where links are refused, is renamed after a
    /// look at the name: a folder created there in between, if empty, would be replaced.
    func renameWithoutReplacing(
        from source: FileDescriptor, _ from: FilePath, to destination: FileDescriptor, _ to: FilePath, reportedAs path: FilePath
    ) throws(SystemError) {
        if configuration.renameFlags {
            do {
                try Syscalls.renameat2(from: source, from, to: destination, to, flags: Syscalls.renameNoReplace, reportedAs: path)
                return
            } catch {
                if !unsupportedFlagCodes.contains(error.code) { throw error }
            }
        }
        guard let status = try Syscalls.statusIfPresent(in: source, from, reportedAs: path) else {
            throw SystemError(code: ENOENT, operation: "rename", path: path)
        }
        if status.kind != .directory && configuration.hardLinks {
            do throws(SystemError) {
                try Syscalls.link(from: source, from, to: destination, to, reportedAs: path)
                do { try Syscalls.unlink(in: source, from, reportedAs: path) }
                catch {
                    try? Syscalls.unlink(in: destination, to, reportedAs: path)
                    throw error
                }
                return
            } catch {
                if [EEXIST, EXDEV, ENOENT].contains(error.code) { throw error }
            }
        }
        if try Syscalls.statusIfPresent(in: destination, to, reportedAs: path) != nil {
            throw SystemError(code: EEXIST, operation: "rename", path: path)
        }
        try Syscalls.rename(from: source, from, to: destination, to, reportedAs: path)
    }

    /// Makes every item's new place durable, and the emptied source folders of renamed ones.
    private func syncAfterPlacing() throws(MoveError) {
        do { try directory.sync() }
        catch { throw .failed(folder, error) }
        try syncSources()
    }

    private func syncSources() throws(MoveError) {
        for descriptor in changedSources.values {
            do { try descriptor.sync() }
            catch { throw .failed(descriptor.path ?? folder, error) }
        }
        changedSources = [:]
    }

    // MARK: Setting originals aside

    /// Renames the original of every item copied across file systems to a temporary name in
    /// its own folder: undoable until the end, and swept as an orphan if the process dies
    /// (its copy is durably in place by now). The original must still be the file copied.
    private func setAsideOriginals() throws(MoveError) {
        for entry in entries where entry.placement == .copied {
            let aside = claimTemporaryName(forDirectory: entry.isDirectory)
            do throws(SystemError) {
                try renameWithoutReplacing(from: entry.sourceDirectory, entry.sourceName, to: entry.sourceDirectory, aside, reportedAs: entry.item.source)
            } catch {
                throw .failed(entry.item.source, error)
            }
            entry.setAside = aside
            changedSources[ObjectIdentifier(entry.sourceDirectory)] = entry.sourceDirectory
            let now = try? Syscalls.statusIfPresent(in: entry.sourceDirectory, aside, reportedAs: entry.item.source)
            guard let now, now.inode == entry.status.inode, now.device == entry.status.device else {
                throw .sourceChanged(entry.item.source)
            }
            observer?(.setAside(entry.item.source))
        }
    }

    // MARK: Ending

    /// Removes the originals set aside and the replaced files kept for undoing. A failure
    /// here only leaves an orphan, which a sweep removes (a replaced folder kept aside stays).
    private func commit() {
        for entry in entries {
            if let aside = entry.setAside {
                FolderTree.remove(aside, in: entry.sourceDirectory, reportedAs: entry.item.source)
                changedSources[ObjectIdentifier(entry.sourceDirectory)] = entry.sourceDirectory
            }
            switch entry.backup {
            case .link(let name)?, .aside(let name)?:
                FolderTree.remove(name, in: directory, reportedAs: entry.destination)
            case nil:
                break
            }
        }
        try? directory.sync()
        for descriptor in changedSources.values { try? descriptor.sync() }
    }

    /// Puts everything back as it was, in reverse order, and removes every temporary. Best
    /// effort: a step that fails does not stop the others, and nothing is ever removed that is
    /// not a copy of ours (an item that cannot go back stays in its new place).
    private func abandon() {
        for entry in entries.reversed() {
            if let aside = entry.setAside {
                if (try? renameWithoutReplacing(from: entry.sourceDirectory, aside, to: entry.sourceDirectory, entry.sourceName, reportedAs: entry.item.source)) != nil {
                    entry.setAside = nil
                }
                changedSources[ObjectIdentifier(entry.sourceDirectory)] = entry.sourceDirectory
            }
            guard entry.setAside == nil else { continue }
            switch entry.placement {
            case .renamed?:
                if isOurs(entry.name, inode: entry.status.inode, device: entry.status.device),
                   (try? renameWithoutReplacing(from: directory, entry.name, to: entry.sourceDirectory, entry.sourceName, reportedAs: entry.item.source)) != nil {
                    entry.placement = nil
                    changedSources[ObjectIdentifier(entry.sourceDirectory)] = entry.sourceDirectory
                }
            case .copied?:
                if let staged = entry.staged, isOurs(entry.name, inode: staged.inode, device: nil),
                   (try? renameWithoutReplacing(from: directory, entry.name, to: directory, staged.name, reportedAs: entry.destination)) != nil {
                    entry.placement = nil
                }
            case nil:
                break
            }
            guard entry.placement == nil else { continue }
            switch entry.backup {
            case .link(let backup)?:
                if (try? Syscalls.rename(in: directory, backup, to: entry.name, reportedAs: entry.destination)) != nil { entry.backup = nil }
            case .aside(let aside)?:
                if (try? renameWithoutReplacing(from: directory, aside, to: directory, entry.name, reportedAs: entry.destination)) != nil {
                    entry.backup = nil
                }
            case nil:
                break
            }
        }
        for entry in entries {
            if let staged = entry.staged, entry.placement == nil {
                FolderTree.remove(staged.name, in: directory, reportedAs: entry.destination)
                entry.staged = nil
            }
        }
        try? directory?.sync()
        for descriptor in changedSources.values { try? descriptor.sync() }
    }

    private func isOurs(_ name: FilePath, inode: UInt64, device: UInt64?) -> Bool {
        guard let now = try? Syscalls.statusIfPresent(in: directory, name, reportedAs: folder.appending(name.bytes)) else { return false }
        return now.inode == inode && (device == nil || now.device == device)
    }
}
