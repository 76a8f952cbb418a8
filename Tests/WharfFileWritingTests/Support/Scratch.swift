#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfSystem
@testable import WharfFileWriting

/// A fresh directory under /tmp for one test, removed (with anything mounted on it detached)
/// when the test is done with it.
final class Scratch {
    let path: String
    private var mounts: [String] = []

    init() {
        var template = Array("/tmp/wharf-fw-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: errno \(errno)")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        for mount in mounts.reversed() { umount2(mount, Int32(MNT_DETACH)) }
        _ = run("/bin/rm", ["-rf", path])
    }

    func at(_ name: String) -> String { FilePath.join(path, name) }

    /// Creates a subdirectory (mode 0755 whatever the umask, for the tests that drop privileges).
    @discardableResult
    func directory(_ name: String) -> String {
        let directory = at(name)
        precondition(mkdir(directory, 0o755) == 0 && chmod(directory, 0o755) == 0, "mkdir \(directory)")
        return directory
    }

    /// Mounts a tmpfs of `size` bytes at a new subdirectory.
    func tmpfs(_ name: String, size: Int) throws -> String {
        let directory = self.directory(name)
        let options = "size=\(size),mode=0755"
        guard mount("tmpfs", directory, "tmpfs", 0, options) == 0 else {
            throw SystemError.current("mount tmpfs on", path: directory)
        }
        mounts.append(directory)
        return directory
    }

    /// Makes the directory `path` read-only by bind-mounting it onto itself read-only: the one
    /// kind of read-only that root cannot write through.
    func makeReadOnly(_ directory: String) throws {
        guard mount(directory, directory, nil, UInt(MS_BIND), nil) == 0 else {
            throw SystemError.current("bind-mount", path: directory)
        }
        mounts.append(directory)
        guard mount(nil, directory, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else {
            throw SystemError.current("remount read-only", path: directory)
        }
    }

    /// The names in the directory, without `.` and `..`.
    func names(in directory: String? = nil) -> Set<String> {
        Set(listDirectory(directory ?? path))
    }

    /// Names that look like Wharf temporary files.
    func temporaries(in directory: String? = nil) -> Set<String> {
        names(in: directory).filter { $0.hasPrefix(AtomicWriter.temporaryPrefix) }
    }
}

func listDirectory(_ path: String) -> [String] {
    guard let stream = opendir(path) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Writes `bytes` to `path` directly (test setup, not under test).
func put(_ bytes: [UInt8], at path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "open \(path): errno \(errno)")
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        precondition(wrote > 0, "write \(path)")
        done += wrote
    }
}

func put(_ text: String, at path: String) { put(Array(text.utf8), at: path) }

/// The contents of the file at `path` (following symlinks), or nil if it cannot be read.
func contents(of path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got < 0 { return nil }
        if got == 0 { return result }
        result += buffer[..<got]
    }
}

func text(of path: String) -> String? { contents(of: path).map { String(decoding: $0, as: UTF8.self) } }

/// What `lstat` says, or nil if nothing is at `path`.
func linkStatus(_ path: String) -> FileStatus? { try? FileStatus.ofLink(path) }

func symlinkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Deterministic pseudo-random bytes, so a mismatch is reproducible.
func patternBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        initialized = count
    }
}

/// The process umask, read without changing it (changing it would race other tests).
func currentUmask() -> mode_t {
    for line in (text(of: "/proc/self/status") ?? "").split(separator: "\n") where line.hasPrefix("Umask:") {
        return mode_t(line.dropFirst(6).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8) ?? 0o022
    }
    return 0o022
}

extension Substring {
    func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        var rest = self[...]
        while let first = rest.first, predicate(first) { rest = rest.dropFirst() }
        return rest
    }
}
