import Glibc

/// The calls a move needs: names taken from one open directory to another, folders and
/// symbolic links made and removed relative to an open directory, and a file's times and
/// owner carried over exactly. Like the rest of ``Syscalls``, each retries `EINTR` and reports
/// failure as a ``SystemError`` naming `reportedAs`.
extension Syscalls {
    /// `renameat2(2)` from one directory to another; `ENOSYS` when the C library lacks it.
    public static func renameat2(
        from source: FileDescriptor, _ from: FilePath, to destination: FileDescriptor, _ to: FilePath,
        flags: UInt32, reportedAs path: FilePath
    ) throws(SystemError) {
        guard let call = renameat2Function else { throw SystemError(code: ENOSYS, operation: "rename", path: path) }
        try retrying("rename", path: path) {
            from.withCString { from in to.withCString { to in call(source.raw, from, destination.raw, to, flags) } }
        }
    }

    /// `renameat(2)` from one directory to another: replaces what is at `to` (atomically).
    public static func rename(
        from source: FileDescriptor, _ from: FilePath, to destination: FileDescriptor, _ to: FilePath, reportedAs path: FilePath
    ) throws(SystemError) {
        try retrying("rename", path: path) {
            from.withCString { from in to.withCString { to in renameat(source.raw, from, destination.raw, to) } }
        }
    }

    /// `linkat(2)` from one directory to another, never following a symbolic link at `from`.
    public static func link(
        from source: FileDescriptor, _ from: FilePath, to destination: FileDescriptor, _ to: FilePath, reportedAs path: FilePath
    ) throws(SystemError) {
        try retrying("link", path: path) {
            from.withCString { from in to.withCString { to in linkat(source.raw, from, destination.raw, to, 0) } }
        }
    }

    /// `mkdirat(2)`; the kernel applies the umask to `mode`.
    public static func makeDirectory(in directory: FileDescriptor, _ name: FilePath, mode: mode_t, reportedAs path: FilePath) throws(SystemError) {
        try retrying("mkdir", path: path) { name.withCString { mkdirat(directory.raw, $0, mode) } }
    }

    /// `unlinkat(2)` with `AT_REMOVEDIR`: removes an empty directory.
    public static func removeDirectory(in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) {
        try retrying("remove folder", path: path) { name.withCString { unlinkat(directory.raw, $0, AT_REMOVEDIR) } }
    }

    /// `readlinkat(2)`: the bytes a symbolic link holds, whatever their length.
    public static func readLink(in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) -> [UInt8] {
        var capacity = 256
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let count = buffer.withUnsafeMutableBytes { raw in
                name.withCString { readlinkat(directory.raw, $0, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count) }
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .current("readlink", path: path)
            }
            if count < capacity { return Array(buffer[..<count]) }
            capacity *= 4
        }
    }

    /// `symlinkat(2)`: a link named `name` in `directory` holding `target`'s bytes.
    public static func makeSymlink(_ target: [UInt8], in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) {
        guard let target = FilePath(bytes: target) else { throw SystemError(code: EINVAL, operation: "symlink", path: path) }
        try retrying("symlink", path: path) {
            target.withCString { target in name.withCString { symlinkat(target, directory.raw, $0) } }
        }
    }

    /// `fstatat(2)` without following a final symlink, with the times to the nanosecond; nil
    /// when nothing is there.
    public static func statusAndTimes(in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) -> (FileStatus, FileTimes)? {
        var raw = stat()
        while name.withCString({ fstatat(directory.raw, $0, &raw, AT_SYMLINK_NOFOLLOW) }) != 0 {
            if errno == ENOENT { return nil }
            if errno != EINTR { throw .current("stat", path: path) }
        }
        return (FileStatus(raw), FileTimes(raw))
    }

    /// `fstat(2)` with the times to the nanosecond.
    public static func statusAndTimes(of file: FileDescriptor) throws(SystemError) -> (FileStatus, FileTimes) {
        var raw = stat()
        try retrying("fstat", path: file.path) { fstat(file.raw, &raw) }
        return (FileStatus(raw), FileTimes(raw))
    }

    /// `futimens(2)`: sets the access and modification times of an open file.
    public static func setTimes(_ file: FileDescriptor, _ times: FileTimes) throws(SystemError) {
        let values = [times.accessed.raw, times.modified.raw]
        try retrying("set the times of", path: file.path) { futimens(file.raw, values) }
    }

    /// `utimensat(2)` with `AT_SYMLINK_NOFOLLOW`: sets the times of a symbolic link itself.
    public static func setLinkTimes(in directory: FileDescriptor, _ name: FilePath, _ times: FileTimes, reportedAs path: FilePath) throws(SystemError) {
        let values = [times.accessed.raw, times.modified.raw]
        try retrying("set the times of", path: path) { name.withCString { utimensat(directory.raw, $0, values, AT_SYMLINK_NOFOLLOW) } }
    }

    /// `fchownat(2)` with `AT_SYMLINK_NOFOLLOW`: the owner of a symbolic link itself.
    public static func changeLinkOwner(in directory: FileDescriptor, _ name: FilePath, owner: UInt32, group: UInt32, reportedAs path: FilePath) throws(SystemError) {
        try retrying("chown", path: path) { name.withCString { fchownat(directory.raw, $0, owner, group, AT_SYMLINK_NOFOLLOW) } }
    }
}
