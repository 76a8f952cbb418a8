import Glibc
import WharfSystem

/// Says which processes are using a state store, so that a Wharf starting up can tell, without
/// opening SQLite, whether a process ended without closing it (a crash) and left rows and
/// temporary files to sweep. That is what lets a server open the store only when a session
/// first needs it, and still sweep a crash's leftovers as the next Wharf starts.
///
/// A process opening the store first creates `running/<instance>` in the state directory and
/// holds an exclusive `flock` on it until it closes the store, then removes it. The kernel drops
/// the lock when the process dies, however it dies: a marker that can be locked belongs to a
/// process that is gone without closing the store. (A lock, unlike a pid, means the same in every
/// pid namespace that sees the directory, and is never recycled.)
///
/// A marker is made under a dot name, locked, and only then renamed into place, so every marker
/// under its real name is locked from the first moment it can be seen: a sweep in another
/// process never takes a live process's marker for a dead one. Dot names are ignored.
final class InUseMarker: Sendable {
    static let directoryName = "running"

    private let directory: FilePath
    private let name: FilePath
    /// Holds the lock; closing it (when this object goes) releases it.
    private let handle: FileDescriptor

    private init(directory: FilePath, name: FilePath, handle: FileDescriptor) {
        self.directory = directory
        self.name = name
        self.handle = handle
    }

    /// Creates and locks this process's marker in `stateDirectory`.
    static func create(in stateDirectory: FilePath, instance: String) throws(SystemError) -> InUseMarker {
        let directory = stateDirectory.appending(directoryName)
        try Syscalls.makeDirectories(directory, mode: 0o700)
        let parent = try Syscalls.openDirectory(directory)
        let name = FilePath(unchecked: Array(instance.utf8))
        let hidden = FilePath(unchecked: Array(".\(instance)".utf8))
        let handle = try parent.open(hidden, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600,
                                     reportedAs: directory.appending(hidden.bytes))
        guard Syscalls.tryLock(handle) else {
            throw SystemError(code: EWOULDBLOCK, operation: "lock", path: directory.appending(hidden.bytes))
        }
        try Syscalls.rename(in: parent, hidden, to: name, reportedAs: directory.appending(name.bytes))
        return InUseMarker(directory: directory, name: name, handle: handle)
    }

    /// Removes the marker: the store was closed properly. The lock goes with `handle`.
    func remove() {
        guard let parent = try? Syscalls.openDirectory(directory) else { return }
        try? Syscalls.unlink(in: parent, name, reportedAs: directory.appending(name.bytes))
    }

    /// Whether a process that used the store in `stateDirectory` ended without closing it.
    static func crashLeftovers(in stateDirectory: FilePath) -> Bool {
        var found = false
        forEachAbandoned(in: stateDirectory) { _, _ in found = true; return false }
        return found
    }

    /// Removes the markers of processes that ended without closing the store: called once
    /// their rows and temporary files are swept. Each is removed while locked, so a process
    /// that finds it at the same moment sees either a marker it cannot judge dead or none.
    static func removeAbandoned(in stateDirectory: FilePath) {
        forEachAbandoned(in: stateDirectory) { parent, name in
            try? Syscalls.unlink(in: parent, name, reportedAs: stateDirectory.appending(directoryName).appending(name.bytes))
            return true
        }
    }

    /// Calls `visit` with each marker nobody holds locked, while this process holds the lock,
    /// until it returns false.
    private static func forEachAbandoned(in stateDirectory: FilePath, _ visit: (FileDescriptor, FilePath) -> Bool) {
        let directory = stateDirectory.appending(directoryName)
        guard let parent = try? Syscalls.openDirectory(directory),
              let names = try? DirectoryEntries.names(in: parent) else { return }
        for bytes in names where bytes.first != UInt8(ascii: ".") {
            let name = FilePath(unchecked: bytes)
            guard let marker = try? parent.open(name, O_RDONLY | O_NOFOLLOW, reportedAs: directory.appending(bytes)),
                  Syscalls.tryLock(marker) else { continue }
            if !visit(parent, name) { return }
        }
    }
}
