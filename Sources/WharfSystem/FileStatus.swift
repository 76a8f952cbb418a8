import Glibc

/// What `stat`/`lstat` says about a path, in Swift terms.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, symlink, other
    }

    public var kind: Kind
    public var size: Int64
    /// Permission bits and file type bits, as `st_mode`.
    public var mode: UInt32
    /// Last modification, in seconds since the epoch (with fraction).
    public var modified: Double
    public var device: UInt64
    public var inode: UInt64
    /// How many names the file has (`st_nlink`); 0 once it was unlinked.
    public var linkCount: UInt64
    /// The owner's user id and the group id (`st_uid`, `st_gid`).
    public var owner: UInt32
    public var group: UInt32

    public init(_ raw: stat) {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = Int64(raw.st_size)
        mode = raw.st_mode
        modified = Double(raw.st_mtim.tv_sec) + Double(raw.st_mtim.tv_nsec) / 1_000_000_000
        device = UInt64(raw.st_dev)
        inode = UInt64(raw.st_ino)
        linkCount = UInt64(raw.st_nlink)
        owner = raw.st_uid
        group = raw.st_gid
    }

    /// An empty regular file that exists nowhere: for asking what a name alone would make of
    /// a file (identification without a file).
    public static var regularFile: FileStatus {
        var raw = stat()
        raw.st_mode = S_IFREG | 0o644
        return FileStatus(raw)
    }

    /// A directory that exists nowhere: for asking what a name alone makes of a folder (a
    /// package's type is its name's).
    public static var directory: FileStatus {
        var raw = stat()
        raw.st_mode = S_IFDIR | 0o755
        return FileStatus(raw)
    }

    /// A FIFO, socket or device: never a document, whatever its name says (opening a FIFO can
    /// block, reading a device can be endless).
    public var isSpecial: Bool { kind == .other }

    /// A character or block device: bytes without end for some (`/dev/zero`, `/dev/urandom`),
    /// a whole disk for others.
    public var isDevice: Bool { mode & S_IFMT == S_IFCHR || mode & S_IFMT == S_IFBLK }

    /// What a special file is, in words (`a FIFO`, `a socket`, `a character device`, …).
    public var specialKindDescription: String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a regular file"
        }
    }

    /// `stat(2)`: follows symlinks.
    public static func of(_ path: FilePath) throws(SystemError) -> FileStatus {
        var raw = stat()
        guard path.withCString({ stat($0, &raw) }) == 0 else { throw .current("stat", path: path) }
        return FileStatus(raw)
    }

    /// `lstat(2)`: describes a symlink itself.
    public static func ofLink(_ path: FilePath) throws(SystemError) -> FileStatus {
        var raw = stat()
        guard path.withCString({ lstat($0, &raw) }) == 0 else { throw .current("lstat", path: path) }
        return FileStatus(raw)
    }
}

extension FilePath {
    /// Whether this names a regular file (symlinks followed) that this process may run:
    /// `stat(2)`, then `access(2)` with `X_OK`, which is what a search of `PATH` asks of each
    /// candidate.
    public var isExecutableFile: Bool {
        guard (try? FileStatus.of(self))?.kind == .regular else { return false }
        return withCString { access($0, X_OK) } == 0
    }
}

/// Who a file is, independent of where it is: the inode within a file system.
///
/// The device number alone is not enough to name a file system across reboots (it changes on
/// some), so identity also carries the file system id from `statfs(2)` (through `statvfs(3)`); callers fall back to
/// the path when neither matches.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    /// The file system id (`f_fsid` of `statvfs(3)`, which glibc fills from `statfs(2)`).
    public var fileSystem: UInt64

    public init(device: UInt64, inode: UInt64, fileSystem: UInt64) {
        self.device = device
        self.inode = inode
        self.fileSystem = fileSystem
    }

    /// The identity of what `path` names now, following symlinks unless `followSymlinks` is false.
    public static func of(_ path: FilePath, followSymlinks: Bool = true) throws(SystemError) -> FileIdentity {
        let status = followSymlinks ? try FileStatus.of(path) : try FileStatus.ofLink(path)
        var fs = statvfs()
        // statvfs follows symlinks; for an unfollowed link its directory's file system is the same.
        let fsPath = followSymlinks ? path : path.directory
        guard fsPath.withCString({ statvfs($0, &fs) }) == 0 else { throw .current("statvfs", path: path) }
        return FileIdentity(device: status.device, inode: status.inode, fileSystem: UInt64(fs.f_fsid))
    }

    /// Same inode on the same file system, judged by the file system id when both have one and
    /// by the device number otherwise.
    public func sameFile(as other: FileIdentity) -> Bool {
        guard inode == other.inode else { return false }
        if fileSystem != 0 && other.fileSystem != 0 { return fileSystem == other.fileSystem }
        return device == other.device
    }

    public var description: String { "dev \(device) ino \(inode) fs \(fileSystem)" }
}
