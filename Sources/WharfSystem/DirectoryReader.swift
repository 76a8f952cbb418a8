import Glibc

/// Reads a whole directory in one `readdir(3)` pass with one `fstatat(2)` per entry
/// (``read(_:includeHidden:)``), or its names alone (``scan(_:includeHidden:)``), whose
/// entries are then looked up a few at a time (``describe(_:in:)``): what dialog listings of
/// directories with 100,000 entries do, so that their first page waits for the names only.
/// Every entry is looked up relative to the open directory (no path is built and resolved per
/// entry). Names stay bytes, exactly as the file system holds them.
public enum DirectoryReader {
    /// One entry of a directory, with what `stat` says about it.
    public struct Entry: Sendable {
        /// The entry's name within the directory (never `.` or `..`), as bytes.
        public var name: [UInt8]
        /// The entry itself is a symbolic link.
        public var isSymlink: Bool
        /// The link points nowhere (or somewhere that cannot be stat'ed); `status` then
        /// describes the link itself.
        public var isBrokenSymlink: Bool
        /// The status of what the entry names, following a symlink when it can be followed.
        public var status: FileStatus
    }

    /// Every entry of `directory` except `.` and `..`, in `readdir` order, and the open
    /// directory (for reading entries' contents relative to it, as sniffing does).
    ///
    /// - Parameter includeHidden: when false, names starting with `.` are skipped before they
    ///   are stat'ed, which is most of the saving in directories full of dot files.
    /// Entries that vanish between `readdir` and `fstatat` are left out rather than reported as
    /// errors: a listing is a snapshot of a directory others may be changing.
    public static func read(_ directory: FilePath, includeHidden: Bool = true) throws(SystemError) -> (entries: [Entry], handle: FileDescriptor) {
        let handle = try Syscalls.openDirectory(directory)
        var entries: [Entry] = []
        try DirectoryEntries.forEach(in: handle) { name in
            if name[0] == 0x2E && !includeHidden { return true }
            if let entry = describe(name, in: handle.raw) { entries.append(entry) }
            return true
        }
        return (entries, handle)
    }

    /// The names of a directory and which of them lead to directories, in `readdir` order,
    /// without a `stat` for most of them: `d_type` says what an entry is, and only an entry
    /// that is a symlink (`DT_LNK`: does it lead to a directory?) or whose file system does not
    /// say (`DT_UNKNOWN`) is looked up. What is enough to sort a listing, folders first; the
    /// rest of an entry is read by ``describe(_:in:)`` when it is shown.
    public struct Scan: Sendable {
        /// Every name's bytes, one after the other (one buffer, not an array per name).
        public var bytes: [UInt8] = []
        /// Where each name starts in ``bytes``; one more than there are names, the last the end.
        public var starts: [Int] = [0]
        /// Whether each entry is a directory, or a symlink to one.
        public var isDirectory: [Bool] = []

        public init() {}

        public var count: Int { isDirectory.count }

        /// The name of entry `index`.
        public func name(_ index: Int) -> [UInt8] {
            bytes.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[starts[index]..<starts[index + 1]])) }
        }

        mutating func append(_ name: UnsafeBufferPointer<UInt8>, isDirectory: Bool) {
            bytes.append(contentsOf: name)
            starts.append(bytes.count)
            self.isDirectory.append(isDirectory)
        }
    }

    /// One `readdir` pass over `directory` (see ``Scan``); `includeHidden` as in ``read(_:includeHidden:)``.
    /// Entries that vanish before a needed `fstatat` are left out.
    public static func scan(_ directory: FilePath, includeHidden: Bool = true) throws(SystemError) -> Scan {
        let handle = try Syscalls.openDirectory(directory)
        var scan = Scan()
        try DirectoryEntries.forEachWithType(in: handle) { name, type in
            if name[0] == 0x2E && !includeHidden { return true }
            let isDirectory: Bool
            switch Int32(type) {
            case Int32(DT_DIR): isDirectory = true
            case Int32(DT_LNK), Int32(DT_UNKNOWN):
                var raw = stat()
                if fstatat(handle.raw, name.baseAddress!, &raw, 0) == 0 {
                    isDirectory = raw.st_mode & S_IFMT == S_IFDIR
                } else if fstatat(handle.raw, name.baseAddress!, &raw, AT_SYMLINK_NOFOLLOW) == 0 {
                    isDirectory = false  // a broken link
                } else {
                    return true  // gone
                }
            default: isDirectory = false
            }
            name.withMemoryRebound(to: UInt8.self) { scan.append(UnsafeBufferPointer(rebasing: $0.dropLast()), isDirectory: isDirectory) }
            return true
        }
        return scan
    }

    /// What `fstatat` says of `name` inside the open `directory` (see ``Entry``); nil when it is
    /// gone.
    public static func describe(_ name: [UInt8], in directory: FileDescriptor) -> Entry? {
        // The name, NUL-terminated, on the stack when it fits (names are at most 255 bytes).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: name.count + 1) { terminated in
            name.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(terminated).copyMemory(from: bytes)
            }
            terminated[name.count] = 0
            return status(UnsafeBufferPointer(terminated), in: directory.raw).map {
                Entry(name: name, isSymlink: $0.isSymlink, isBrokenSymlink: $0.isBroken, status: $0.status)
            }
        }
    }

    /// `fstatat` for one name: without following first (so a link is seen as a link), then
    /// following a link to describe its target.
    private static func describe(_ name: UnsafeBufferPointer<CChar>, in directory: Int32) -> Entry? {
        status(name, in: directory).map {
            Entry(name: name.withMemoryRebound(to: UInt8.self) { Array($0.dropLast()) },
                  isSymlink: $0.isSymlink, isBrokenSymlink: $0.isBroken, status: $0.status)
        }
    }

    private static func status(
        _ name: UnsafeBufferPointer<CChar>, in directory: Int32
    ) -> (status: FileStatus, isSymlink: Bool, isBroken: Bool)? {
        var raw = stat()
        guard fstatat(directory, name.baseAddress!, &raw, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let isSymlink = raw.st_mode & S_IFMT == S_IFLNK
        var isBroken = false
        if isSymlink && fstatat(directory, name.baseAddress!, &raw, 0) != 0 {
            isBroken = true
            guard fstatat(directory, name.baseAddress!, &raw, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        }
        return (FileStatus(raw), isSymlink, isBroken)
    }
}
