#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a whole directory in one `readdir(3)` pass with one `fstatat(2)` per entry.
///
/// This is the fast path behind dialog listings of directories with 100,000 entries: the
/// directory is opened once, every entry is looked up relative to that descriptor (no path is
/// built and resolved per entry), and `d_type` saves the extra `lstat` for everything that is
/// not a symlink.
public enum DirectoryReader {
    /// One entry of a directory, with what `stat` says about it.
    public struct Entry: Sendable {
        /// The entry's name within the directory (never `.` or `..`).
        public var name: String
        /// The entry itself is a symbolic link.
        public var isSymlink: Bool
        /// The link points nowhere (or somewhere that cannot be stat'ed); `status` then
        /// describes the link itself.
        public var isBrokenSymlink: Bool
        /// The status of what the entry names, following a symlink when it can be followed.
        public var status: FileStatus
    }

    /// Every entry of `directory` except `.` and `..`, in `readdir` order.
    ///
    /// - Parameter includeHidden: when false, names starting with `.` are skipped before they
    ///   are stat'ed, which is most of the saving in directories full of dot files.
    /// Entries that vanish between `readdir` and `fstatat` are left out rather than reported as
    /// errors: a listing is a snapshot of a directory others may be changing.
    public static func read(_ directory: String, includeHidden: Bool = true) throws(SystemError) -> [Entry] {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .current("open", path: directory) }
        guard let stream = fdopendir(descriptor) else {
            let error = SystemError.current("fdopendir", path: directory)
            close(descriptor)
            throw error
        }
        // closedir closes `descriptor` too.
        defer { closedir(stream) }

        var entries: [Entry] = []
        while true {
            errno = 0
            guard let raw = readdir(stream) else {
                if errno != 0 { throw .current("readdir", path: directory) }
                break
            }
            let type = raw.pointee.d_type
            let entry: Entry? = withUnsafePointer(to: &raw.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { name in
                    if name[0] == 0x2E {  // "."
                        if name[1] == 0 || (name[1] == 0x2E && name[2] == 0) { return nil }
                        if !includeHidden { return nil }
                    }
                    return describe(name, type: type, in: descriptor)
                }
            }
            if let entry { entries.append(entry) }
        }
        return entries
    }

    /// `fstatat` for one name: without following for anything `d_type` says is not a link (so a
    /// link swapped in meanwhile is seen as a link, not followed), following for links.
    private static func describe(_ name: UnsafePointer<CChar>, type: UInt8, in directory: Int32) -> Entry? {
        var raw = stat()
        var isSymlink = type == UInt8(DT_LNK)
        if !isSymlink {
            guard fstatat(directory, name, &raw, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            isSymlink = raw.st_mode & S_IFMT == S_IFLNK
        }
        var isBroken = false
        if isSymlink {
            if fstatat(directory, name, &raw, 0) != 0 {
                isBroken = true
                guard fstatat(directory, name, &raw, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            }
        }
        return Entry(
            name: String(cString: name),
            isSymlink: isSymlink,
            isBrokenSymlink: isBroken,
            status: FileStatus(raw)
        )
    }
}
