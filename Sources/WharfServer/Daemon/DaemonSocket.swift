import Glibc
import WharfSystem

/// Where the daemon listens, and how it takes the place: the default path in a directory only
/// the user can enter, a lock held for the daemon's whole life (two daemons never both bind),
/// a socket left by a dead daemon replaced, a live one never.
struct DaemonSocket: Sendable {
    /// The socket's name in its directory.
    static let defaultDirectoryName = "wharf"
    static let defaultName = "wharf.sock"

    let path: FilePath
    let listener: FileDescriptor
    /// `PATH.lock`, `flock`ed while the daemon lives.
    private let lock: FileDescriptor
    /// The socket file's inode after `bind`, so that only our own socket is removed at exit.
    private let inode: UInt64?

    /// `$XDG_RUNTIME_DIR/wharf/wharf.sock`, or why there is no default.
    static func defaultPath() throws(StartupError) -> FilePath {
        guard let runtime = ProcessControl.runtimeDirectory else {
            throw StartupError(message: "XDG_RUNTIME_DIR is not set, so there is no default socket path: give one (--listen=PATH, --connect=PATH)")
        }
        return runtime.appending(defaultDirectoryName).appending(defaultName)
    }

    /// Creates the default socket's directory (mode 0700) if needed, and checks that it is a
    /// directory of ours that nobody else may enter (tightening its mode if it is ours).
    static func prepareDefaultDirectory(_ directory: FilePath) throws(StartupError) {
        do {
            try Syscalls.makeDirectories(directory, mode: 0o700)
            let status = try FileStatus.ofLink(directory)
            guard status.kind == .directory else {
                throw StartupError(message: "\(directory) is not a directory; the daemon's socket cannot go there")
            }
            let handle = try Syscalls.openDirectory(directory)
            guard try handle.ownerUserID() == ProcessControl.userID else {
                throw StartupError(message: "\(directory) belongs to another user; the daemon's socket cannot go there")
            }
            if status.mode & 0o077 != 0 { try Syscalls.changeMode(handle, 0o700) }
        } catch let error as StartupError {
            throw error
        } catch {
            throw StartupError(message: "cannot prepare \(directory) for the daemon's socket: \(error)")
        }
    }

    /// Takes `path`: holds its lock, removes a stale socket there, binds and listens (mode 0600).
    static func bind(_ path: FilePath, isDefault: Bool, logger: Logger) throws(StartupError) -> DaemonSocket {
        if isDefault { try prepareDefaultDirectory(path.directory) }
        let lockPath = FilePath(unchecked: path.bytes + Array(".lock".utf8))
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
        } catch {
            throw StartupError(message: "cannot open the daemon's lock \(lockPath): \(error)")
        }
        guard Syscalls.tryLock(lock) else {
            throw StartupError(message: "another wharf daemon already serves \(path)")
        }
        try removeIfStale(path, logger: logger)
        do {
            let listener = try UnixSocket.listen(at: path)
            try listener.setNonBlocking()
            let inode = (try? FileStatus.ofLink(path))?.inode
            return DaemonSocket(path: path, listener: listener, lock: lock, inode: inode)
        } catch {
            throw StartupError(message: "cannot listen on \(path): \(error)")
        }
    }

    /// Something at `path`: a socket nobody listens on (its daemon died) is removed; a live
    /// one (systemd's `wharf.socket`, a daemon that does not take the lock) or anything that is
    /// not a socket is left alone, and the daemon does not start.
    private static func removeIfStale(_ path: FilePath, logger: Logger) throws(StartupError) {
        guard let status = try? FileStatus.ofLink(path) else { return }
        guard status.mode & S_IFMT == S_IFSOCK else {
            throw StartupError(message: "\(path) exists and is not a socket; remove it or listen elsewhere (--listen=PATH)")
        }
        do {
            let probe = try UnixSocket.connect(to: path)
            probe.close()
            throw StartupError(message: "something already listens on \(path) (systemd's wharf.socket?); use that, or --listen=PATH")
        } catch let error as StartupError {
            throw error
        } catch let error as SystemError where error.code == ECONNREFUSED {
            do { try UnixSocket.remove(path) } catch { throw StartupError(message: "cannot remove the stale socket \(path): \(error)") }
            logger.info("replaced the stale socket \(path) left by a daemon that is gone")
        } catch {
            throw StartupError(message: "cannot tell whether \(path) is in use: \(error)")
        }
    }

    /// Removes the socket file if it is still the one we bound (at exit).
    func remove() {
        guard let inode, (try? FileStatus.ofLink(path))?.inode == inode else { return }
        try? UnixSocket.remove(path)
    }
}
