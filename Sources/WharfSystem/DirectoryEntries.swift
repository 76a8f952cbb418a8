import Glibc

/// The names in one directory (`readdir(3)`), without `.` and `..`, in the order the file
/// system returns them, as bytes.
public enum DirectoryEntries {
    /// At most `limit` names, so a search through a huge directory stays bounded.
    public static func names(in directory: FilePath, limit: Int = .max) throws(SystemError) -> [[UInt8]] {
        let handle = try Syscalls.openDirectory(directory)
        return try names(in: handle, limit: limit)
    }

    /// The names in an open directory (read through a duplicate, so `handle` stays open).
    public static func names(in handle: FileDescriptor, limit: Int = .max) throws(SystemError) -> [[UInt8]] {
        var names: [[UInt8]] = []
        guard limit > 0 else { return names }
        try forEach(in: handle) { name in
            names.append(name.withMemoryRebound(to: UInt8.self) { Array($0.dropLast()) })
            return names.count < limit
        }
        return names
    }

    /// Calls `visit` with each name (NUL-terminated, the NUL counted in the buffer's length),
    /// `.` and `..` left out, until it returns false. The name is read where it lies in the
    /// `readdir` record: a record is only as long as its name needs (`d_reclen`), so copying
    /// the whole `d_name` array out of it would read past the record.
    public static func forEach(
        in handle: FileDescriptor, _ visit: (UnsafeBufferPointer<CChar>) throws(SystemError) -> Bool
    ) throws(SystemError) {
        try forEachWithType(in: handle) { name, _ throws(SystemError) in try visit(name) }
    }

    /// Like ``forEach(in:_:)``, with each entry's `d_type` (`DT_DIR`, `DT_REG`, `DT_LNK`, …;
    /// `DT_UNKNOWN` where the file system does not say), which `readdir` gives for free.
    public static func forEachWithType(
        in handle: FileDescriptor, _ visit: (UnsafeBufferPointer<CChar>, UInt8) throws(SystemError) -> Bool
    ) throws(SystemError) {
        // fdopendir takes the descriptor over (closedir closes it), hence the duplicate; and a
        // duplicate shares the file offset, so rewind to read from the start every time.
        let copy = try handle.duplicate()
        guard let stream = fdopendir(copy.raw) else { throw copy.failure("fdopendir") }
        copy.relinquish()  // closedir below closes the number
        defer { closedir(stream) }
        rewinddir(stream)
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw handle.failure("readdir") }
                return
            }
            let type = entry.pointee.d_type
            let keepGoing = try withUnsafeMutablePointer(to: &entry.pointee.d_name) { tuple throws(SystemError) in
                try tuple.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { name throws(SystemError) in
                    if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return true }
                    return try visit(UnsafeBufferPointer(start: name, count: strlen(name) + 1), type)
                }
            }
            if !keepGoing { return }
        }
    }
}
