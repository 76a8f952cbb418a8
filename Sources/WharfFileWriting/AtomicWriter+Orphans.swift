import Glibc
import WharfSystem

extension AtomicWriter {
    /// Removes temporary files orphaned by a crash in `directory`; returns the paths removed.
    ///
    /// Only names of exactly the form `.wharf-tmp-<pid>-<16 hex digits>` are considered, and of
    /// those only regular files and symlinks (a replaced symlink is kept under such a name until
    /// an export ends); and folders of exactly the form `.wharf-tmp-dir-<pid>-<16 hex digits>`
    /// (a folder a move was copying across file systems, or a moved folder's original set aside
    /// once its copy was in place), removed with everything in them. A file is left alone
    /// while its owner may still be using it:
    /// - its pid is another live process (`kill(pid, 0)` succeeds or is refused), which covers
    ///   everything a live export holds, backups of replaced files included; a recycled pid
    ///   only delays the cleanup until that process ends;
    /// - its pid is ours and an export in this process has claimed the name; our pid on an
    ///   unclaimed name means an earlier process that had the same pid;
    /// - or someone holds an `flock` on it, as every writer does on its temporary file while
    ///   writing — which protects writers whose pid means nothing here (another pid namespace
    ///   sharing the directory).
    @discardableResult
    public static func removeOrphans(in directory: FilePath) -> [FilePath] {
        guard let handle = try? Syscalls.openDirectory(directory),
              let names = try? DirectoryEntries.names(in: handle)
        else { return [] }
        var removed: [FilePath] = []
        for name in names {
            let isFolder = TemporaryName.directoryOwner(of: name) != nil
            guard let owner = TemporaryName.owner(of: name) ?? TemporaryName.directoryOwner(of: name) else { continue }
            if owner == ProcessControl.processID {
                if LiveTemporaries.contains(String(decoding: name, as: UTF8.self)) { continue }
            } else if processIsAlive(owner) {
                continue
            }
            let path = directory.appending(name)
            let component = FilePath(unchecked: name)
            guard let status = try? Syscalls.statusIfPresent(in: handle, component, reportedAs: path) else { continue }
            switch status.kind {
            case .symlink where !isFolder:
                break
            case .regular where !isFolder:
                guard isUnlocked(component, in: handle, status: status) else { continue }
            case .directory where isFolder:
                guard isUnlocked(component, in: handle, status: status) else { continue }
                FolderTree.remove(component, in: handle, reportedAs: path)
                if (try? Syscalls.statusIfPresent(in: handle, component, reportedAs: path)) == nil { removed.append(path) }
                continue
            default:
                continue
            }
            if (try? Syscalls.unlink(in: handle, component, reportedAs: path)) != nil {
                removed.append(path)
            }
        }
        return removed
    }

    /// True unless a writer holds an `flock` on the file (or it was swapped for another file
    /// since `status` was taken). A file we may not open is judged by its pid alone.
    private static func isUnlocked(_ name: FilePath, in directory: FileDescriptor, status: FileStatus) -> Bool {
        let file: FileDescriptor
        do {
            file = try directory.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (status.kind == .directory ? O_DIRECTORY : 0))
        } catch {
            return error.code == EACCES || error.code == EPERM
        }
        // Closing `file` when it goes releases our own lock, if we took it.
        guard Syscalls.tryLock(file), let now = try? file.status() else { return false }
        return now.inode == status.inode && now.device == status.device
    }

    private static func processIsAlive(_ pid: pid_t) -> Bool {
        ProcessIdentity.exists(pid)
    }
}
