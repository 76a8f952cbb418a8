import Glibc
import WharfSystem

/// Removing a file or a whole folder relative to an open directory, never following a
/// symbolic link (a link inside is removed, not what it leads to).
enum FolderTree {
    /// Removes `name` in `directory`, with everything in it if it is a folder. Best effort:
    /// what cannot be removed stays (an orphan sweep tries again).
    static func remove(_ name: FilePath, in directory: FileDescriptor, reportedAs path: FilePath) {
        guard let status = try? Syscalls.statusIfPresent(in: directory, name, reportedAs: path) else { return }
        if status.kind == .directory {
            if let folder = try? directory.open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, reportedAs: path) {
                for child in (try? DirectoryEntries.names(in: folder)) ?? [] {
                    remove(FilePath(unchecked: child), in: folder, reportedAs: path.appending(child))
                }
                folder.close()
            }
            try? Syscalls.removeDirectory(in: directory, name, reportedAs: path)
        } else {
            try? Syscalls.unlink(in: directory, name, reportedAs: path)
        }
    }
}
