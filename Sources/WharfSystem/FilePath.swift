#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plain-string path helpers. Wharf passes paths as `String`s (absolute, `/`-separated); these
/// are the only places that take them apart.
public enum FilePath {
    /// Removes `.` and empty components and folds `..` lexically. Does not touch the disk.
    /// A relative path is made absolute against the working directory first.
    public static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
        // One pass over the bytes, keeping the start of each kept component so `..` can drop
        // the last one: every importer choice and access check goes through here.
        var output: [UInt8] = []
        output.reserveCapacity(absolute.utf8.count)
        var starts: [Int] = []
        var component: [UInt8] = []
        func flush() {
            switch component {
            case [], [0x2E]:
                break
            case [0x2E, 0x2E]:
                if let start = starts.popLast() { output.removeSubrange(start...) }
            default:
                starts.append(output.count)
                output.append(0x2F)
                output.append(contentsOf: component)
            }
            component.removeAll(keepingCapacity: true)
        }
        for byte in absolute.utf8 {
            if byte == 0x2F { flush() } else { component.append(byte) }
        }
        flush()
        return output.isEmpty ? "/" : String(decoding: output, as: UTF8.self)
    }

    /// `realpath(3)`: every symlink resolved, the result absolute.
    public static func resolve(_ path: String) throws(SystemError) -> String {
        guard let resolved = realpath(path, nil) else { throw .current("realpath", path: path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The last component (`"/a/b.txt"` → `"b.txt"`; `"/"` → `"/"`).
    public static func lastComponent(of path: String) -> String {
        if path == "/" { return "/" }
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Everything before the last component (`"/a/b.txt"` → `"/a"`; `"/a"` → `"/"`).
    public static func directory(of path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// Joins a directory and a name with exactly one `/`.
    public static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// `$HOME`, or the password database's home directory.
    public static func homeDirectory() -> String {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }
}
