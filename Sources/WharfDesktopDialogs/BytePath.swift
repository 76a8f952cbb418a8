#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The two questions this module asks the file system about a path given as bytes.
/// (WharfSystem's `FileStatus` takes `String` paths, which cannot hold every Linux name.)
public enum BytePath {
    /// Whether something exists at `path` (a dangling symlink counts: `lstat`).
    public static func exists(_ path: [UInt8]) -> Bool {
        var info = stat()
        return withCString(path) { lstat($0, &info) == 0 }
    }

    /// Whether `path` is a regular file this process may execute.
    public static func isExecutableFile(_ path: [UInt8]) -> Bool {
        var info = stat()
        return withCString(path) { stat($0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access($0, X_OK) == 0 }
    }

    static func withCString<T>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { body($0) }
        }
    }
}
