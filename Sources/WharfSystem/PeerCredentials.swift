import Glibc

/// Who is at the other end of a Unix socket, as the kernel recorded it when the peer called
/// `connect(2)` (`SO_PEERCRED`): its process, user and group. The peer cannot choose these.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// `getsockopt(SO_PEERCRED)`. `struct ucred` is behind `_GNU_SOURCE`, so it is read as the
    /// three 32-bit fields it is (pid, uid, gid).
    public static func of(_ socket: FileDescriptor) throws(SystemError) -> PeerCredentials {
        var fields: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: fields))
        guard getsockopt(socket.raw, SOL_SOCKET, peerCredentialsOption, &fields, &length) == 0 else {
            throw .current("getsockopt SO_PEERCRED")
        }
        return PeerCredentials(pid: fields.0, uid: fields.1, gid: fields.2)
    }

    /// `SO_PEERCRED` from `<asm-generic/socket.h>` (x86-64 and arm64 alike).
    private static let peerCredentialsOption: Int32 = 17
    /// `SO_PEERPIDFD` (Linux 6.5): a pidfd of the peer process as it was at `connect(2)`.
    private static let peerProcessHandleOption: Int32 = 77

    /// Whether the process that connected `socket` still runs, told by the kernel's handle on
    /// that very process (`SO_PEERPIDFD`), which no later process given the same pid can pass
    /// for: while it runs, `/proc/PID` is it. Nil when the kernel has no such handle (before
    /// Linux 6.5).
    public static func peerIsRunning(_ socket: FileDescriptor) -> Bool? {
        var raw: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket.raw, SOL_SOCKET, peerProcessHandleOption, &raw, &length) == 0, raw >= 0 else { return nil }
        let handle = FileDescriptor(taking: raw)
        // A pidfd becomes readable once its process has exited.
        var poller = pollfd(fd: handle.raw, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) < 0 {
            if errno != EINTR { return nil }
        }
        return poller.revents == 0
    }

    public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }
}

extension ProcessControl {
    /// This process's real user id (`getuid(2)`).
    public static var userID: UInt32 { getuid() }

    /// `$XDG_RUNTIME_DIR` when it is set to an absolute path: where per-user sockets belong.
    public static var runtimeDirectory: FilePath? {
        guard let bytes = environment("XDG_RUNTIME_DIR"), let path = FilePath(bytes: bytes), path.isAbsolute else { return nil }
        return path
    }

    /// Removes environment variables (as `sd_listen_fds` does with the ones it consumed, so that
    /// children do not believe they were handed the sockets).
    public static func removeEnvironment(_ names: [String]) {
        for name in names { unsetenv(name) }
    }

    /// This process's parent (`getppid(2)`).
    public static var parentProcessID: Int32 { getppid() }
}
