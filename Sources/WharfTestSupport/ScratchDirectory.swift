#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// A fresh directory under /tmp for one test, removed with everything in it when the test is
/// done with it.
public final class ScratchDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "wharf-test") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(SystemError.current("mkdtemp"))")
        path = String(cString: created!)
    }

    /// `name` inside the directory (which may contain `/`).
    public func path(_ name: String) -> String { FilePath.join(path, name) }

    /// The `file:` URL of `name` inside the directory.
    public func url(_ name: String) -> String { FileURL.from(path: path(name)) }

    /// Writes `contents` to `name`, creating parent directories.
    @discardableResult
    public func write(_ name: String, _ contents: String) -> String { write(name, Array(contents.utf8)) }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = path(name)
        makeDirectory(FilePath.directory(of: name))
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(descriptor >= 0, "cannot write \(target): \(SystemError.current("open"))")
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            precondition(written > 0)
            offset += written
        }
        return target
    }

    /// Creates `name` (and its parents) as a directory.
    @discardableResult
    public func makeDirectory(_ name: String) -> String {
        let target = name.hasPrefix("/") ? name : path(name)
        var current = ""
        for component in target.split(separator: "/") {
            current += "/" + component
            mkdir(current, 0o755)
        }
        return target
    }

    /// Reads `name` back.
    public func read(_ name: String) -> String? {
        let descriptor = open(path(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `name` exists (without following a final symlink).
    public func exists(_ name: String) -> Bool {
        var status = stat()
        return lstat(path(name), &status) == 0
    }

    /// Names directly inside `name` (or the directory itself), sorted.
    public func contents(_ name: String = "") -> [String] {
        guard let directory = opendir(name.isEmpty ? path : path(name)) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let entryName = DirectoryEntries.name(of: entry)
            if entryName != "." && entryName != ".." { names.append(entryName) }
        }
        return names.sorted()
    }

    deinit {
        if let child = try? ChildProcess(path: "/bin/rm", arguments: ["-rf", path]) {
            _ = child.waitForExit(seconds: 30)
        }
    }
}
