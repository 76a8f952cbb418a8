#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An open file descriptor for brokered I/O: opened without following a final symlink and
/// without blocking (a FIFO swapped in must not hang the server), so that the caller can check
/// *which* file it got (`identity`) before reading or writing a byte.
///
/// Walking a path one component at a time (`init(in:name:mode:)` with `.directory` handles)
/// refuses a symbolic link anywhere on the way, which a single `open` with `O_NOFOLLOW` cannot:
/// that flag only looks at the last component.
///
/// Not `Sendable`: one handle serves one request on one thread, and is closed when it goes away.
public final class AccessFileHandle {
    public let descriptor: Int32
    public let path: String

    public enum Mode: Sendable {
        /// `O_RDONLY`.
        case read
        /// `O_WRONLY`.
        case write
        /// `O_PATH`: names a file without opening it for I/O (no read permission needed); enough
        /// for `fstat`, `fstatfs` and as the directory of `openat`.
        case path
        /// `O_PATH | O_DIRECTORY`: a step of a walk; fails with `ENOTDIR` on anything else.
        case directory

        var flags: Int32 {
            switch self {
            case .read: O_RDONLY
            case .write: O_WRONLY
            case .path: AccessFileHandle.openPathOnly
            case .directory: AccessFileHandle.openPathOnly | O_DIRECTORY
            }
        }
    }

    /// `O_PATH`, which Swift's Glibc module leaves out (it is behind `_GNU_SOURCE`). The value
    /// is the kernel's generic one, shared by x86-64 and arm64 (`include/uapi/asm-generic/fcntl.h`).
    private static let openPathOnly: Int32 = 0o10_000_000

    private static let commonFlags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY

    /// `open(2)` with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`. `ELOOP` means the last
    /// component is a symbolic link (with `.path`, the link itself is opened instead: check
    /// `status().kind`).
    public init(path: String, mode: Mode) throws(SystemError) {
        var fd: Int32
        repeat {
            fd = open(path, mode.flags | Self.commonFlags)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw .current("open", path: path) }
        self.descriptor = fd
        self.path = path
    }

    /// `openat(2)` of one `name` (no `/`) inside `directory`, with the same flags as above.
    public init(in directory: AccessFileHandle, name: String, mode: Mode) throws(SystemError) {
        let path = FilePath.join(directory.path, name)
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw SystemError(code: EINVAL, operation: "openat", path: path)
        }
        var fd: Int32
        repeat {
            fd = openat(directory.descriptor, name, mode.flags | Self.commonFlags)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw .current("openat", path: path) }
        self.descriptor = fd
        self.path = path
    }

    deinit { close(descriptor) }

    /// `fstat(2)` of the open descriptor.
    public func status() throws(SystemError) -> FileStatus {
        try FileStatus.of(descriptor: descriptor, path: path)
    }

    /// The identity of the file actually opened (`fstat(2)` + `fstatvfs(3)`), immune to the path
    /// changing underneath.
    public func identity() throws(SystemError) -> FileIdentity {
        let status = try status()
        var fs = statvfs()
        guard fstatvfs(descriptor, &fs) == 0 else { throw .current("fstatvfs", path: path) }
        return FileIdentity(device: status.device, inode: status.inode, fileSystem: UInt64(fs.f_fsid))
    }

    /// When the opened file was created (see `FileBirth`), nil when the file system does not say.
    public func birth() -> Int64? {
        FileBirth.of(descriptor: descriptor)
    }

    /// `pread(2)` until `length` bytes or end of file; fewer bytes means end of file was reached.
    public func read(at offset: Int64, length: Int) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .current("pread", path: path)
            }
            if got == 0 { break }
            done += got
        }
        buffer.removeLast(length - done)
        return buffer
    }

    /// `pwrite(2)` until every byte is written.
    public func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if wrote < 0 {
                if errno == EINTR { continue }
                throw .current("pwrite", path: path)
            }
            done += wrote
        }
    }

    /// `ftruncate(2)`.
    public func truncate(to length: Int64) throws(SystemError) {
        while ftruncate(descriptor, off_t(length)) != 0 {
            if errno != EINTR { throw .current("ftruncate", path: path) }
        }
    }
}
