import Glibc
import WharfSystem

/// A fresh directory under /tmp for one test, removed with everything in it (and anything
/// mounted on it detached) when the test lets go of it.
///
/// Its path has symbolic links resolved, so paths the server resolves compare equal to the ones
/// a test builds. Names given to its methods are relative paths (`docs/a.txt`); parent folders
/// are created as needed. Every test target uses this one type: setting up a file tree is the
/// same chore everywhere.
///
/// `@unchecked Sendable`: `mounts` is changed only by the test that made the directory, on its own thread, before anything else sees them.
public final class ScratchDirectory: @unchecked Sendable {
    public let path: FilePath
    private var mounts: [FilePath] = []

    /// A new directory `label-XXXXXX` in `base` (/tmp by default; /dev/shm for tests that
    /// fsync thousands of files and need memory, not a disk, under them), holding a small
    /// file for each of `files` (for tests that only need names to pick from).
    public init(_ label: String = "wharf-test", in base: String = "/tmp", files: [String] = []) {
        var template = Array("\(base)/\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(SystemError.current("mkdtemp"))")
        path = try! FilePath(cString: created!).resolved()
        for name in files { write(name, "x") }
    }

    deinit {
        for mount in mounts.reversed() { _ = mount.withCString { umount2($0, Int32(MNT_DETACH)) } }
        removeTree(path)
    }

    /// `name` inside the directory (which may contain `/`).
    public func path(_ name: String) -> FilePath { path.appending(name) }

    /// `name`'s path as text, as the protocol and the command line carry it (these tests' names
    /// are UTF-8, so the text is the bytes; byte-exact cases use URLs).
    public func file(_ name: String) -> String { path(name).description }

    /// `name` given as bytes (a name that need not be UTF-8), directly inside the directory.
    public func path(bytes name: [UInt8]) -> FilePath { path.appending(name) }

    /// The `file:` URL of `name` inside the directory.
    public func url(_ name: String) -> String { path(name).url }

    /// Writes `contents` to `name`, creating parent directories.
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: mode_t = 0o644) -> FilePath {
        write(name, Array(contents.utf8), mode: mode)
    }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) -> FilePath {
        let target = path(name)
        try! Syscalls.makeDirectories(target.directory, mode: 0o755)
        writeFile(target, bytes, mode: mode)
        return target
    }

    /// Creates `name` (and its parents) as a directory, mode 0755 whatever the umask.
    @discardableResult
    public func makeDirectory(_ name: String) -> FilePath {
        let target = path(name)
        try! Syscalls.makeDirectories(target, mode: 0o755)
        _ = target.withCString { chmod($0, 0o755) }
        return target
    }

    /// A symbolic link at `name` pointing to `target` (taken as written: relative or absolute).
    @discardableResult
    public func symlink(_ name: String, to target: String) -> FilePath {
        let link = path(name)
        try! Syscalls.makeDirectories(link.directory, mode: 0o755)
        precondition(link.withCString { Glibc.symlink(target, $0) } == 0, "symlink \(link): \(SystemError.current("symlink"))")
        return link
    }

    /// A symbolic link at `name` pointing to `target`'s exact bytes.
    @discardableResult
    public func symlink(_ name: String, to target: FilePath) -> FilePath {
        let link = path(name)
        try! Syscalls.makeDirectories(link.directory, mode: 0o755)
        makeSymlink(target, at: link)
        return link
    }

    /// A FIFO at `name`: opening it for reading blocks until a writer comes.
    @discardableResult
    public func fifo(_ name: String) -> FilePath {
        let target = path(name)
        makeFIFO(target, mode: 0o644)
        return target
    }

    /// A bound Unix socket at `name`: a file that exists but that `open` refuses even to root
    /// (ENXIO), which is how tests running as root get a file that cannot be read.
    @discardableResult
    public func socket(_ name: String) -> FilePath {
        let target = path(name)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0 && target.bytes.count < 108, "socket \(target)")
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in target.bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        Glibc.close(descriptor)
        precondition(bound == 0, "bind \(target)")
        return target
    }

    /// What `name` holds, or nil when it cannot be read.
    public func read(_ name: String) -> [UInt8]? { readFile(path(name)) }

    /// What `name` holds, as text (for files a test wrote as text).
    public func text(_ name: String) -> String? { read(name).map { String(decoding: $0, as: UTF8.self) } }

    /// Whether `name` exists (without following a final symlink).
    public func exists(_ name: String) -> Bool { (try? FileStatus.ofLink(path(name))) != nil }

    /// Names directly inside `name` (or the directory itself), sorted, as text.
    public func contents(_ name: String = "") -> [String] {
        directoryNames(name.isEmpty ? path : path(name)).map { String(decoding: $0, as: UTF8.self) }.sorted()
    }

    /// Mounts a tmpfs of `size` bytes at a new subdirectory `name` (root only): a small
    /// file system that fills up, for tests of a full disk.
    public func tmpfs(_ name: String, size: Int) throws(SystemError) -> FilePath {
        let directory = makeDirectory(name)
        let mounted = directory.withCString { mount("tmpfs", $0, "tmpfs", 0, "size=\(size),mode=0755") }
        guard mounted == 0 else { throw .current("mount tmpfs on", path: directory) }
        mounts.append(directory)
        return directory
    }

    /// Makes `directory` read-only by bind-mounting it onto itself read-only (root only): the
    /// one kind of read-only that root cannot write through.
    public func makeReadOnly(_ directory: FilePath) throws(SystemError) {
        guard directory.withCString({ mount($0, $0, nil, UInt(MS_BIND), nil) }) == 0 else {
            throw .current("bind-mount", path: directory)
        }
        mounts.append(directory)
        guard directory.withCString({ mount(nil, $0, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) }) == 0 else {
            throw .current("remount read-only", path: directory)
        }
    }
}

/// Removes a tree without following symbolic links.
public func removeTree(_ path: FilePath) {
    if (try? FileStatus.ofLink(path))?.kind == .directory {
        for name in directoryNames(path) { removeTree(path.appending(name)) }
        _ = path.withCString { rmdir($0) }
    } else {
        _ = path.withCString { unlink($0) }
    }
}
