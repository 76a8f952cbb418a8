#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

extension AtomicWriter {
    /// Removes temporary files orphaned by a crash in `directory`; returns the paths removed.
    ///
    /// Only names of exactly the form `.wharf-tmp-<pid>-<16 hex digits>` are considered, and of
    /// those only regular files and symlinks (a replaced symlink is kept under such a name until
    /// an export ends). A file is left alone while its owner may still be using it:
    /// - its pid is another live process (`kill(pid, 0)` succeeds or is refused), which covers
    ///   everything a live export holds, backups of replaced files included; a recycled pid
    ///   only delays the cleanup until that process ends;
    /// - its pid is ours and an export in this process has claimed the name; our pid on an
    ///   unclaimed name means an earlier process that had the same pid;
    /// - or someone holds an `flock` on it, as every writer does on its temporary file while
    ///   writing — which protects writers whose pid means nothing here (another pid namespace
    ///   sharing the directory).
    @discardableResult
    public static func removeOrphans(in directory: String) -> [String] {
        guard let descriptor = try? Syscalls.openDirectory(directory) else { return [] }
        defer { close(descriptor) }
        var removed: [String] = []
        for name in entryNames(of: descriptor) {
            guard let owner = TemporaryName.owner(of: name) else { continue }
            if owner == getpid() {
                if LiveTemporaries.contains(name) { continue }
            } else if processIsAlive(owner) {
                continue
            }
            let path = FilePath.join(directory, name)
            guard let status = try? Syscalls.statusIfPresent(in: descriptor, name, reportedAs: path) else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                break
            case S_IFREG:
                guard isUnlocked(name, in: descriptor, status: status) else { continue }
            default:
                continue
            }
            if (try? Syscalls.unlink(in: descriptor, name, reportedAs: path)) != nil {
                removed.append(path)
            }
        }
        return removed
    }

    /// True unless a writer holds an `flock` on the file (or it was swapped for another file
    /// since `status` was taken). A file we may not open is judged by its pid alone.
    private static func isUnlocked(_ name: String, in directory: Int32, status: stat) -> Bool {
        let file = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return errno == EACCES || errno == EPERM }
        defer { close(file) }  // Releases our own lock, if we took it.
        guard Syscalls.tryLock(file) else { return false }
        var now = stat()
        guard fstat(file, &now) == 0 else { return false }
        return now.st_ino == status.st_ino && now.st_dev == status.st_dev
    }

    private static func processIsAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// The names in a directory, read through a duplicate of `descriptor` (`closedir` closes
    /// the one it is given).
    private static func entryNames(of descriptor: Int32) -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(DirectoryEntries.name(of: entry))
        }
        return names
    }
}
