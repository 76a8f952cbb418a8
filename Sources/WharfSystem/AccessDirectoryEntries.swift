#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The names in one directory (`opendir(3)`/`readdir(3)`), without `.` and `..`, in the order the
/// file system returns them. At most `limit` names are returned, so a search through a huge
/// directory stays bounded.
public enum DirectoryEntries {
    public static func names(in directory: String, limit: Int = .max) throws(SystemError) -> [String] {
        guard let stream = opendir(directory) else { throw .current("opendir", path: directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while names.count < limit {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .current("readdir", path: directory) }
                break
            }
            let name = DirectoryEntries.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The name in a `readdir(3)` record, read where it lies. A record is only as long as its
    /// name needs (`d_reclen`), so copying the whole `d_name` array out of it, as
    /// `entry.pointee.d_name` does, reads bytes past the record.
    public static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeMutablePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
    }
}
