import WharfSystem

/// Who a file is, as the store records it: its `FileIdentity` (inode with the file system id,
/// device as the fallback) and, where the file system records it, its birth time.
///
/// The birth time is what keeps a recycled inode number from passing for the file that was
/// deleted: without it, a bookmark whose file was removed could be "found again" as whatever
/// new file the file system gave the same number to, in the same or a sibling folder.
struct Fingerprint: Equatable {
    var identity: FileIdentity
    /// Nanoseconds since the epoch; nil when unknown (older rows, file systems without it).
    var birth: Int64?

    /// The same file: same identity, and the same birth time when both are known.
    func matches(_ other: Fingerprint) -> Bool {
        guard identity.sameFile(as: other.identity) else { return false }
        guard let birth, let otherBirth = other.birth else { return true }
        return birth == otherBirth
    }

    /// The file an open handle refers to.
    static func of(_ handle: AccessFileHandle) throws(SystemError) -> Fingerprint {
        try of(handle.descriptor)
    }

    /// The file an open descriptor refers to.
    static func of(_ handle: FileDescriptor) throws(SystemError) -> Fingerprint {
        Fingerprint(identity: try handle.identity(), birth: handle.birth())
    }

    /// The file at `path`, or nil when it cannot be examined. Follows symbolic links: callers
    /// that must not be led elsewhere check with `lstat` first.
    static func of(path: FilePath) -> Fingerprint? {
        guard let identity = try? FileIdentity.of(path),
              let born = FileBirth.of(path, followSymlinks: true), born.inode == identity.inode
        else { return (try? FileIdentity.of(path)).map { Fingerprint(identity: $0, birth: nil) } }
        return Fingerprint(identity: identity, birth: born.birth)
    }
}
