import Glibc
import WharfSystem

/// Writes `bytes` to `path`, creating or truncating it (test setup, not under test).
public func writeFile(_ path: FilePath, _ bytes: [UInt8], mode: mode_t = 0o644) {
    let file = try! FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
    try! file.write(all: bytes)
}

public func writeFile(_ path: FilePath, _ text: String) { writeFile(path, Array(text.utf8)) }

/// What the file at `path` holds (following symlinks), or nil when it cannot be read.
public func readFile(_ path: FilePath) -> [UInt8]? {
    try? FileDescriptor.open(path, O_RDONLY).readToEnd()
}

/// What the file at `path` holds, as text.
public func readText(_ path: FilePath) -> String? {
    readFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// The names in a directory (without `.` and `..`), as bytes; empty when it cannot be read.
public func directoryNames(_ path: FilePath) -> [[UInt8]] {
    (try? DirectoryEntries.names(in: path)) ?? []
}

/// Whether something is at `path` (not following a final symlink).
public func exists(_ path: FilePath) -> Bool { (try? FileStatus.ofLink(path)) != nil }

/// Where a symbolic link points, or nil when `path` is not one.
public func symlinkTarget(_ path: FilePath) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = path.withCString { readlink($0, &buffer, buffer.count - 1) }
    guard count >= 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `rename(2)`, for tests that move files behind the server's back.
public func move(_ from: FilePath, to: FilePath) {
    let moved = from.withCString { source in to.withCString { rename(source, $0) } }
    precondition(moved == 0, "rename \(from) → \(to): \(SystemError.current("rename"))")
}

/// `link(2)`: a second name for the same file.
public func hardLink(_ existing: FilePath, at path: FilePath) {
    let linked = existing.withCString { source in path.withCString { link(source, $0) } }
    precondition(linked == 0, "link \(existing) → \(path): \(SystemError.current("link"))")
}

/// An editor's save: the new content goes to a temporary, which is renamed over the original
/// (so the path names a new file).
public func atomicSave(_ path: FilePath, _ text: String) {
    let temporary = path.directory.appending(path.lastComponent + Array(".tmp-save".utf8))
    writeFile(temporary, text)
    move(temporary, to: path)
}

/// The identity of what `path` names now.
public func identity(_ path: FilePath) -> FileIdentity { try! FileIdentity.of(path) }

/// Deterministic pseudo-random bytes, so a mismatch is reproducible.
///
/// Eight bytes a step of the generator, stored a word at a time: tests ask for tens of MiB
/// and run unoptimised (and instrumented under the sanitizers), where a byte at a time took
/// over a second a MiB.
public func patternBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var generator = SeededRandom(seed: seed)
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        let raw = UnsafeMutableRawBufferPointer(buffer)
        var offset = 0
        while offset + 8 <= count {
            raw.storeBytes(of: generator.next().littleEndian, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        var last = generator.next()
        while offset < count {
            raw[offset] = UInt8(truncatingIfNeeded: last)
            last >>= 8
            offset += 1
        }
        initialized = count
    }
}

/// A small deterministic generator (SplitMix64) for property tests: a failing case is
/// reproduced from the seed the test prints.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// The process umask, read without changing it (changing it would race other tests).
public func currentUmask() -> mode_t {
    let status = readText("/proc/self/status") ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
        return mode_t(line.dropFirst(6).filter { $0 != " " && $0 != "\t" }, radix: 8) ?? 0o022
    }
    return 0o022
}

/// A symbolic link at `path` pointing to `target`, taken as written.
public func makeSymlink(_ target: String, at path: FilePath) {
    precondition(path.withCString { symlink(target, $0) } == 0, "symlink \(path): \(SystemError.current("symlink"))")
}

/// A symbolic link at `path` pointing to `target`'s exact bytes.
public func makeSymlink(_ target: FilePath, at path: FilePath) {
    let made = target.withCString { target in path.withCString { symlink(target, $0) } }
    precondition(made == 0, "symlink \(path): \(SystemError.current("symlink"))")
}

/// `chmod(2)`.
public func setMode(_ path: FilePath, _ mode: mode_t) {
    precondition(path.withCString { chmod($0, mode) } == 0, "chmod \(path): \(SystemError.current("chmod"))")
}

/// `unlink(2)`; true when something was removed.
@discardableResult
public func removeFile(_ path: FilePath) -> Bool { path.withCString { unlink($0) } == 0 }

/// `mkfifo(2)`.
public func makeFIFO(_ path: FilePath, mode: mode_t = 0o600) {
    precondition(path.withCString { mkfifo($0, mode) } == 0, "mkfifo \(path): \(SystemError.current("mkfifo"))")
}

/// `setfsuid(2)` for the calling thread: file-system checks on this thread are made as `uid`
/// (the previous one is returned, to set back). Tests run as root, whom permission bits do not
/// stop; becoming `nobody` (65534) on one thread is how they meet an unreadable file. Looked up
/// at run time: Swift's Glibc module leaves it out.
public func setFileSystemUser(_ uid: UInt32) -> Int32 {
    typealias SetFSUID = @convention(c) (UInt32) -> Int32
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "setfsuid") else { return -1 }
    return unsafeBitCast(symbol, to: SetFSUID.self)(uid)
}
