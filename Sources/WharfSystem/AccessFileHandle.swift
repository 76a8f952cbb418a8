import Glibc

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
    public let descriptor: FileDescriptor
    public let path: FilePath

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
            case .path: Syscalls.openPathOnly
            case .directory: Syscalls.openPathOnly | O_DIRECTORY
            }
        }
    }

    private static let commonFlags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY

    /// `open(2)` with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`. `ELOOP` means the last
    /// component is a symbolic link (with `.path`, the link itself is opened instead: check
    /// `status().kind`).
    public init(path: FilePath, mode: Mode) throws(SystemError) {
        self.descriptor = try FileDescriptor.open(path, mode.flags | Self.commonFlags)
        self.path = path
    }

    /// `openat(2)` of one `name` (no `/`, not `.` or `..`) inside `directory`, with the same
    /// flags as above.
    public init(in directory: AccessFileHandle, name: [UInt8], mode: Mode) throws(SystemError) {
        let path = directory.path.appending(name)
        guard let component = FilePath(bytes: name), !name.contains(FilePath.slash), name != [0x2E], name != [0x2E, 0x2E]
        else { throw SystemError(code: EINVAL, operation: "openat", path: path) }
        self.descriptor = try directory.descriptor.open(component, mode.flags | Self.commonFlags)
        self.path = path
    }

    /// `fstat(2)` of the open descriptor.
    public func status() throws(SystemError) -> FileStatus { try descriptor.status() }

    /// The identity of the file actually opened, immune to the path changing underneath.
    public func identity() throws(SystemError) -> FileIdentity { try descriptor.identity() }

    /// When the opened file was created (see `FileBirth`), nil when the file system does not say.
    public func birth() -> Int64? { descriptor.birth() }

    /// `pread(2)` until `length` bytes or end of file; fewer bytes means end of file was reached.
    public func read(at offset: Int64, length: Int) throws(SystemError) -> [UInt8] {
        try descriptor.read(at: offset, length: length)
    }

    /// `pwrite(2)` until every byte is written.
    public func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        try descriptor.write(bytes, at: offset)
    }

    /// `ftruncate(2)`.
    public func truncate(to length: Int64) throws(SystemError) { try descriptor.truncate(to: length) }
}
