import Glibc
import WharfSystem

/// Error codes with which a file system says it does not support a `renameat2` flag.
private let unsupportedFlagCodes: Set<Int32> = [EINVAL, ENOSYS, EOPNOTSUPP]

extension ExportTransaction {
    // MARK: Renaming into place

    func publishAll() throws(ExportError) {
        for entry in entries {
            try checkCancelled()
            entry.publication = try publish(entry)
            entry.directory.changed = true
        }
    }

    /// Makes every rename durable before anything old is deleted.
    func syncDirectories() throws(ExportError) {
        var synced = Set<ObjectIdentifier>()
        for entry in entries where entry.directory.changed {
            guard synced.insert(ObjectIdentifier(entry.directory)).inserted else { continue }
            do { try entry.directory.descriptor.sync() }
            catch { throw .failed(path: entry.item.destination, cause: error) }
        }
    }

    /// Deletes the replaced files kept for rollback. A failure here only leaves an orphan,
    /// which the next sweep removes.
    func commit() {
        for entry in entries {
            guard let temporary = entry.temporary else { continue }
            if case .replaced(let backup) = entry.publication {
                try? Syscalls.unlink(in: entry.directory.descriptor, backup, reportedAs: entry.item.destination)
            }
            if temporary.holds != .nothing {
                try? Syscalls.unlink(in: entry.directory.descriptor, temporary.name, reportedAs: entry.item.destination)
                temporary.holds = .nothing
            }
        }
    }

    /// Moves one finished temporary file to its destination, in a way that can be undone.
    private func publish(_ entry: ExportEntry) throws(ExportError) -> ExportEntry.Publication {
        guard entry.item.overwrite else {
            try placeWithoutReplacing(entry)
            return .created
        }
        // Whatever is at the destination may change under us (appear, vanish); a few rounds
        // settle any such race, each step being atomic on its own.
        for _ in 0..<4 {
            if let publication = try replace(entry) { return publication }
        }
        throw failure(entry, SystemError(code: EAGAIN, operation: "replace (it kept changing)", path: entry.item.destination))
    }

    /// Renames the temporary file to the destination only if nothing is there, not even a
    /// dangling symlink: `RENAME_NOREPLACE`, or where the file system rejects that flag,
    /// `link` (which fails with `EEXIST` just the same) and `unlink`.
    private func placeWithoutReplacing(_ entry: ExportEntry) throws(ExportError) {
        let temporary = entry.temporary!
        let directory = entry.directory.descriptor
        let destination = entry.item.destination
        if configuration.renameFlags {
            do {
                try Syscalls.renameat2(in: directory, temporary.name, entry.name, flags: Syscalls.renameNoReplace, reportedAs: destination)
                temporary.holds = .nothing
                return
            } catch {
                if error.code == EEXIST { throw .exists(path: destination) }
                if !unsupportedFlagCodes.contains(error.code) { throw failure(entry, error) }
            }
        }
        do { try Syscalls.link(in: directory, temporary.name, to: entry.name, reportedAs: destination) }
        catch {
            if error.code == EEXIST { throw .exists(path: destination) }
            throw failure(entry, error)
        }
        // Our file is in place; if the old name cannot be removed now, the end of the export
        // (or its undoing) tries again.
        if (try? Syscalls.unlink(in: directory, temporary.name, reportedAs: destination)) != nil {
            temporary.holds = .nothing
        }
    }

    /// One attempt at replacing the destination; nil when it changed under us and the attempt
    /// should be repeated.
    private func replace(_ entry: ExportEntry) throws(ExportError) -> ExportEntry.Publication? {
        let temporary = entry.temporary!
        let directory = entry.directory.descriptor
        let destination = entry.item.destination

        if configuration.renameFlags {
            var exchanged = false
            do {
                try Syscalls.renameat2(in: directory, temporary.name, entry.name, flags: Syscalls.renameExchange, reportedAs: destination)
                exchanged = true
            } catch {
                // ENOENT: the destination is gone (or our temporary, which creating will tell).
                if error.code == ENOENT { return try createInstead(entry) }
                if !unsupportedFlagCodes.contains(error.code) { throw failure(entry, error) }
            }
            if exchanged {
                temporary.holds = .oldContents
                // A directory that appeared at the destination since `prepare` must not be
                // swapped away (committing would then try to delete it): swap back and refuse.
                if let old = try? Syscalls.statusIfPresent(in: directory, temporary.name, reportedAs: destination),
                   old.kind == .directory {
                    try? Syscalls.renameat2(in: directory, temporary.name, entry.name, flags: Syscalls.renameExchange, reportedAs: destination)
                    temporary.holds = .newContents
                    throw failure(entry, SystemError(code: EISDIR, operation: "replace", path: destination))
                }
                return .exchanged
            }
        }

        // Without RENAME_EXCHANGE: keep the old file reachable under a backup name (a hard link,
        // so the destination never goes missing), then rename over it.
        let backup = claimTemporaryName()
        do throws(SystemError) {
            guard configuration.hardLinks else { throw SystemError(code: EPERM, operation: "link", path: destination.description) }
            try Syscalls.link(in: directory, entry.name, to: backup, reportedAs: destination)
        } catch {
            switch error.code {
            case ENOENT: return try createInstead(entry)
            case EEXIST: return nil  // The backup name was taken; draw another.
            default:
                // Hard links refused (another owner's file under protected_hardlinks, or a
                // file system without them): move the old file aside instead. Readers may see
                // no file for an instant, but it can still be put back. The name it is moved
                // to is one no orphan sweep removes: a crash between the two renames leaves it
                // the only copy of the user's file.
                return try moveAsideAndReplace(entry, backup: FilePath(unchecked: Array(TemporaryName.makeAside().utf8)))
            }
        }
        do {
            try Syscalls.rename(in: directory, temporary.name, to: entry.name, reportedAs: destination)
        } catch {
            try? Syscalls.unlink(in: directory, backup, reportedAs: destination)
            throw failure(entry, error)
        }
        temporary.holds = .nothing
        return .replaced(backup: backup)
    }

    private func moveAsideAndReplace(_ entry: ExportEntry, backup: FilePath) throws(ExportError) -> ExportEntry.Publication? {
        let temporary = entry.temporary!
        let directory = entry.directory.descriptor
        let destination = entry.item.destination
        do throws(SystemError) {
            if let old = try Syscalls.statusIfPresent(in: directory, entry.name, reportedAs: destination),
               old.kind == .directory {
                throw SystemError(code: EISDIR, operation: "replace", path: destination)
            }
            try Syscalls.rename(in: directory, entry.name, to: backup, reportedAs: destination)
        } catch {
            if error.code == ENOENT { return try createInstead(entry) }
            throw failure(entry, error)
        }
        do {
            try Syscalls.rename(in: directory, temporary.name, to: entry.name, reportedAs: destination)
        } catch {
            try? Syscalls.rename(in: directory, backup, to: entry.name, reportedAs: destination)
            throw failure(entry, error)
        }
        temporary.holds = .nothing
        return .replaced(backup: backup)
    }

    /// The destination vanished while we meant to replace it: create it, unless it came back.
    private func createInstead(_ entry: ExportEntry) throws(ExportError) -> ExportEntry.Publication? {
        do {
            try placeWithoutReplacing(entry)
            return .created
        } catch .exists {
            return nil
        }
    }

    private func failure(_ entry: ExportEntry, _ cause: SystemError) -> ExportError {
        .failed(path: entry.item.destination, cause: cause)
    }

    // MARK: Undoing a rename

    /// Puts the destination back as it was before `publication`. Only our own file is ever
    /// removed from the destination: its inode is checked first.
    func rollBack(_ entry: ExportEntry, _ publication: ExportEntry.Publication) {
        guard let temporary = entry.temporary else { return }
        let directory = entry.directory.descriptor
        let destination = entry.item.destination
        switch publication {
        case .created:
            if let now = try? Syscalls.statusIfPresent(in: directory, entry.name, reportedAs: destination),
               now.inode == temporary.inode {
                try? Syscalls.unlink(in: directory, entry.name, reportedAs: destination)
            }
        case .exchanged:
            if (try? Syscalls.renameat2(in: directory, temporary.name, entry.name, flags: Syscalls.renameExchange, reportedAs: destination)) != nil {
                temporary.holds = .newContents  // Removed with the other temporaries.
            } else if (try? Syscalls.rename(in: directory, temporary.name, to: entry.name, reportedAs: destination)) != nil {
                temporary.holds = .nothing
            }
        case .replaced(let backup):
            try? Syscalls.rename(in: directory, backup, to: entry.name, reportedAs: destination)
        }
        entry.publication = nil
        entry.directory.changed = true
    }
}
