import CProcessSpawn
import Glibc
import Synchronization

/// An open file descriptor this process owns, closed exactly once: by ``close()`` or, failing
/// that, when the last reference goes.
///
/// Raw `Int32` descriptors passed around and closed "somewhere" are how descriptors leak or,
/// worse, get closed twice, the second time closing whatever file reused the number. Every
/// descriptor Wharf opens lives in one of these; `raw` is for the system call of the moment and
/// must not be kept.
///
/// Every call retries on `EINTR` and reports failure as a ``SystemError`` naming the operation
/// and the file (`path`, kept for messages only).
public final class FileDescriptor: Sendable {
    /// The descriptor number; valid until ``close()``.
    public let raw: Int32
    /// What the descriptor was opened as, for error messages.
    public let path: FilePath?
    private let closed = Atomic(false)
    /// What lives as long as the descriptor is open (``holdWhileOpen(_:)``).
    private let companion = Mutex<(any Sendable)?>(nil)

    /// Takes ownership of `raw`, which this object will close.
    public init(taking raw: Int32, path: FilePath? = nil) {
        self.raw = raw
        self.path = path
    }

    deinit { close() }

    /// Closes the descriptor; later calls do nothing. Errors from `close(2)` are not reported:
    /// on Linux the descriptor is gone either way, and retrying could close a reused number.
    public func close() {
        guard closed.exchange(true, ordering: .acquiringAndReleasing) == false else { return }
        _ = Glibc.close(raw)
        letCompanionGo()
    }

    /// Keeps `value` until the descriptor is closed or given up (``relinquish()``), then lets
    /// it go: a budget's charge for holding the descriptor (an exporter's document over the
    /// daemon) is then given back by whatever closes it, however the descriptor's holder ends.
    public func holdWhileOpen(_ value: any Sendable) {
        companion.withLock { $0 = value }
    }

    private func letCompanionGo() {
        // Taken out under the lock, dropped after it: what it releases may take locks of its own.
        let companion = companion.withLock { held -> (any Sendable)? in
            defer { held = nil }
            return held
        }
        _ = companion
    }

    /// Gives the number up without closing it: something else (`closedir`, a child process)
    /// now owns it.
    public func relinquish() {
        closed.store(true, ordering: .releasing)
        letCompanionGo()
    }

    // MARK: Opening

    /// `open(2)` with `O_CLOEXEC` added; `mode` applies when creating.
    public static func open(_ path: FilePath, _ flags: Int32, mode: mode_t = 0o666) throws(SystemError) -> FileDescriptor {
        let raw = try Syscalls.retrying("open", path: path) { path.withCString { Glibc.open($0, flags | O_CLOEXEC, mode) } }
        return FileDescriptor(taking: raw, path: path)
    }

    /// `path` opened only if no symbolic link is on its way, its last component included, so
    /// that the (absolute, normalised) path is already where the file is: its resolved name,
    /// read without asking `/proc` and checking the answer. Nil when a link is on the way, and
    /// whenever this cannot open it (a kernel without `openat2`, or any error): ``open(_:_:mode:)``
    /// then says what is wrong, as if this had not been tried.
    public static func openWithoutSymlinks(_ path: FilePath, _ flags: Int32) -> FileDescriptor? {
        guard path.isAbsolute else { return nil }
        while true {
            let raw = path.withCString { wharf_open_without_symlinks($0, flags, 0) }
            if raw >= 0 { return FileDescriptor(taking: raw, path: path) }
            if errno != EINTR { return nil }
        }
    }

    /// `openat(2)` of `name` (relative to this directory) with `O_CLOEXEC` added. Errors name
    /// `reportedAs` when given (a temporary file is reported as the file it stands for).
    public func open(_ name: FilePath, _ flags: Int32, mode: mode_t = 0o666, reportedAs: FilePath? = nil) throws(SystemError) -> FileDescriptor {
        let shown = reportedAs ?? path?.appending(name.bytes) ?? name
        let raw = try Syscalls.retrying("open", path: shown) { name.withCString { openat(self.raw, $0, flags | O_CLOEXEC, mode) } }
        return FileDescriptor(taking: raw, path: shown)
    }

    /// `fcntl(F_DUPFD_CLOEXEC)`: a second descriptor for the same open file.
    public func duplicate() throws(SystemError) -> FileDescriptor {
        let copy = fcntl(raw, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw failure("dup") }
        return FileDescriptor(taking: copy, path: path)
    }

    // MARK: Reading and writing

    /// One `read(2)`: how many bytes arrived (0 at end of file).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(raw, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw failure("read") }
        }
    }

    /// Fills `buffer` unless the end of the file comes first; how many bytes were read.
    public func read(filling buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Everything up to the end of the file (at most `limit` bytes; more is an `EFBIG` error).
    public func readToEnd(limit: Int = .max) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try read(into: chunk)
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw failure("read", code: EFBIG) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// One `write(2)` of what fits now, on a descriptor opened `O_NONBLOCK`: how many bytes
    /// were written, 0 when none could be without waiting (`EAGAIN`).
    public func write(some bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let wrote = Glibc.write(raw, bytes.baseAddress!, bytes.count)
            if wrote >= 0 { return wrote }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            if errno != EINTR { throw failure("write") }
        }
    }

    /// `write(2)` until every byte is written.
    public func write(all bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let wrote = Glibc.write(raw, bytes.baseAddress! + done, bytes.count - done)
            if wrote > 0 {
                done += wrote
            } else if wrote < 0 && errno == EINTR {
                continue
            } else {
                // No progress on a non-empty buffer: call it full.
                throw failure("write", code: wrote == 0 ? ENOSPC : errno)
            }
        }
    }

    /// `writev(2)` until every byte of every buffer is written, in as few calls as the kernel
    /// allows (64 buffers at a time), resuming after partial writes.
    public func write(gathering buffers: [UnsafeRawBufferPointer]) throws(SystemError) {
        var index = 0
        var offsetInFirst = 0
        var vectors: [iovec] = []
        vectors.reserveCapacity(min(64, buffers.count))
        while index < buffers.count {
            vectors.removeAll(keepingCapacity: true)
            for position in index..<min(index + 64, buffers.count) {
                let buffer = buffers[position]
                let skip = position == index ? offsetInFirst : 0
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress!) + skip,
                                     iov_len: buffer.count - skip))
            }
            let written = writev(raw, vectors, Int32(vectors.count))
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("write")
            }
            // Past whole buffers, then into a partial one.
            var remaining = written
            for vector in vectors {
                if remaining >= vector.iov_len {
                    remaining -= vector.iov_len
                    index += 1
                    offsetInFirst = 0
                } else {
                    offsetInFirst += remaining
                    break
                }
            }
        }
    }

    /// `F_SETPIPE_SZ` (Linux; Swift's Glibc module leaves out the `_GNU_SOURCE` names).
    private static let setPipeSize: Int32 = 1031

    /// Asks for a pipe buffer of `bytes` when this is a pipe; anything else, or a refusal
    /// (`/proc/sys/fs/pipe-max-size`), changes nothing.
    public func growPipeBuffer(to bytes: Int32) {
        var status = stat()
        guard fstat(raw, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        _ = fcntl(raw, Self.setPipeSize, bytes)
    }

    public func write(all bytes: [UInt8]) throws(SystemError) {
        let failure = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try write(all: buffer) }
        }
        try failure.get()
    }

    /// `pread(2)` until `length` bytes or the end of the file; fewer bytes means the end.
    public func read(at offset: Int64, length: Int) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(self.raw, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("pread")
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
                pwrite(self.raw, raw.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if wrote < 0 {
                if errno == EINTR { continue }
                throw failure("pwrite")
            }
            done += wrote
        }
    }

    // MARK: The file behind it

    /// `fstat(2)`.
    /// Whether this is a socket (`fstat`); false when that cannot be told.
    public var isSocket: Bool { ((try? status())?.mode ?? 0) & S_IFMT == S_IFSOCK }

    public func status() throws(SystemError) -> FileStatus {
        var raw = stat()
        guard fstat(self.raw, &raw) == 0 else { throw failure("fstat") }
        return FileStatus(raw)
    }

    /// The identity of the open file (`fstat(2)` + `fstatvfs(3)`), immune to its path changing.
    public func identity() throws(SystemError) -> FileIdentity {
        try identity(status: try status())
    }

    /// The identity of the open file whose `status()` the caller already has: one system call
    /// (`fstatvfs(3)`, for the file system id) instead of two.
    public func identity(status: FileStatus) throws(SystemError) -> FileIdentity {
        var fs = statvfs()
        guard fstatvfs(raw, &fs) == 0 else { throw failure("fstatvfs") }
        return FileIdentity(device: status.device, inode: status.inode, fileSystem: UInt64(fs.f_fsid))
    }

    /// Where the descriptor leads, as `/proc/self/fd/N` says: a path, or a name such as
    /// `pipe:[1234]`.
    /// Nil also for a name that fills the buffer (PATH_MAX and one more byte), which readlink
    /// would have cut short.
    public func linkTarget() -> FilePath? {
        let capacity = 4097
        // Not zeroed first: readlink fills what it returns, and clearing 4 KB cost more than
        // the call itself (this runs for every file a person picks).
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> FilePath? in
            let count = readlink("/proc/self/fd/\(raw)", buffer.baseAddress!, capacity)
            guard count > 0, count < capacity else { return nil }
            return FilePath(bytes: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: count))
        }
    }

    /// Where the open file is now, every symbolic link resolved: the kernel's own name for it
    /// (`/proc/self/fd/N`). That is the name of the file actually opened, not of whatever its
    /// path leads to by now, and costs one system call where `realpath(3)` makes one per
    /// component. A system without /proc gets `realpath` of the path it was opened by. Either
    /// name is checked (`lstat`) to lead to this very file (`status`, from ``status()``): nil
    /// when it does not, the file having been deleted or moved meanwhile.
    public func resolvedPath(status: FileStatus) throws(SystemError) -> FilePath? {
        let leadsHere = { (name: FilePath) -> Bool in
            guard let now = try? FileStatus.ofLink(name) else { return false }
            return now.kind == status.kind && now.device == status.device && now.inode == status.inode
        }
        if let target = linkTarget(), target.isAbsolute, leadsHere(target) { return target }
        guard let path else { throw failure("realpath", code: ENOENT) }
        let resolved = try path.resolved()
        return leadsHere(resolved) ? resolved : nil
    }

    /// When the open file was created (see ``FileBirth``); nil when the file system does not say.
    public func birth() -> Int64? { FileBirth.of(descriptor: raw) }

    /// `fsync(2)`.
    public func sync() throws(SystemError) {
        try Syscalls.retrying("fsync", path: path) { fsync(raw) }
    }

    /// `ftruncate(2)`.
    public func truncate(to length: Int64) throws(SystemError) {
        try Syscalls.retrying("ftruncate", path: path) { ftruncate(raw, off_t(length)) }
    }

    /// The current `errno` (or `code`) as an error about this file.
    func failure(_ operation: String, code: Int32 = errno) -> SystemError {
        if let path { return SystemError(code: code, operation: operation, path: path) }
        return SystemError(code: code, operation: operation)
    }
}
