#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// The one place where the writer talks to the kernel.
///
/// Every call retries on `EINTR` and reports failure as a `SystemError` naming the operation, so
/// the code above reads as a sequence of steps. The Linux-only calls the writer depends on
/// (`renameat2`, `copy_file_range`, `sync_file_range`, `fallocate`, `fstatfs`)
/// are declared by glibc only under `_GNU_SOURCE`,
/// which Swift's `Glibc` module does not see, and `syscall(2)` is variadic and cannot be called
/// from Swift; so they are looked up once by name with `dlsym`. A missing symbol (an old C
/// library) reads as `ENOSYS`, which sends callers down their fallback paths.
enum Syscalls {
    // MARK: Linux extensions, resolved at run time

    /// `RENAME_NOREPLACE` from `<linux/fs.h>`: fail with `EEXIST` instead of replacing.
    static let renameNoReplace: UInt32 = 1
    /// `RENAME_EXCHANGE` from `<linux/fs.h>`: swap the two names atomically.
    static let renameExchange: UInt32 = 2

    private typealias RenameAt2 = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
    ) -> Int32
    private typealias CopyFileRange = @convention(c) (
        Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
    ) -> Int
    private typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32
    private typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// C function pointers resolved once; they never change, so sharing them is safe.
    private struct Extensions: @unchecked Sendable {
        let renameat2: RenameAt2?
        let copyFileRange: CopyFileRange?
        let syncFileRange: SyncFileRange?
        let fallocate: Fallocate?
        let fstatfs: FStatFS?

        init() {
            func lookUp<F>(_ name: String, as type: F.Type) -> F? {
                // RTLD_DEFAULT is the null handle in glibc.
                guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
                return unsafeBitCast(address, to: type)
            }
            renameat2 = lookUp("renameat2", as: RenameAt2.self)
            copyFileRange = lookUp("copy_file_range", as: CopyFileRange.self)
            syncFileRange = lookUp("sync_file_range", as: SyncFileRange.self)
            fallocate = lookUp("fallocate", as: Fallocate.self)
            fstatfs = lookUp("fstatfs", as: FStatFS.self)
        }
    }

    private static let extensions = Extensions()

    /// `renameat2(2)`; `ENOSYS` when the C library lacks it.
    static func renameat2(
        _ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String, flags: UInt32
    ) throws(SystemError) {
        guard let call = extensions.renameat2 else {
            throw SystemError(code: ENOSYS, operation: "renameat2", path: to)
        }
        try retrying("rename", path: to) { call(fromDirectory, from, toDirectory, to, flags) }
    }

    /// What a kernel-side copy call did.
    enum KernelCopy: Equatable {
        /// This many bytes moved; 0 means the kernel saw the end of the source.
        case copied(Int)
        /// It failed with this `errno`.
        case failed(Int32)
    }

    /// `copy_file_range(2)` using and advancing both descriptors' file offsets. `ENOSYS` when
    /// the C library lacks it.
    static func copyFileRange(from source: Int32, to destination: Int32, count: Int) -> KernelCopy {
        guard let call = extensions.copyFileRange else { return .failed(ENOSYS) }
        while true {
            let copied = call(source, nil, destination, nil, count, 0)
            if copied >= 0 { return .copied(copied) }
            if errno != EINTR { return .failed(errno) }
        }
    }

    /// `sendfile(2)` from the source's file offset.
    static func sendFile(from source: Int32, to destination: Int32, count: Int) -> KernelCopy {
        while true {
            let copied = sendfile(destination, source, nil, count)
            if copied >= 0 { return .copied(copied) }
            if errno != EINTR { return .failed(errno) }
        }
    }

    /// `sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`: starts writing the range back to disk
    /// without waiting for it. Only a hint (durability still comes from `fsync`), so failures
    /// and a missing symbol are ignored.
    static func startWriteback(_ descriptor: Int32, offset: Int64, count: Int64) {
        _ = extensions.syncFileRange?(descriptor, offset, count, 2)
    }

    /// `fallocate(2)` with `FALLOC_FL_KEEP_SIZE`: reserves blocks for `count` bytes without
    /// changing the file's size (so a source that turns out shorter leaves no zeros behind).
    /// Returns the `errno`, or nil on success.
    static func reserveSpace(_ descriptor: Int32, count: Int64) -> Int32? {
        guard let call = extensions.fallocate else { return ENOSYS }
        while call(descriptor, 1, 0, count) != 0 {
            if errno != EINTR { return errno }
        }
        return nil
    }

    /// True when the file system behind `descriptor` keeps files in memory (tmpfs, ramfs),
    /// judged by `f_type` from `fstatfs(2)`.
    ///
    /// `struct statfs` is not visible to Swift either; its first member is `f_type`, a C
    /// `long` on the 64-bit Linux ABIs Wharf runs on, so the call fills an ample buffer and
    /// that one field is read from its start.
    static func isMemoryBacked(_ descriptor: Int32) -> Bool {
        guard let call = extensions.fstatfs else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        guard call(descriptor, buffer.baseAddress!) == 0 else { return false }
        let type = buffer.load(as: Int.self)
        let tmpfsMagic = 0x0102_1994, ramfsMagic = 0x8584_58F6
        return type == tmpfsMagic || type == ramfsMagic
    }

    // MARK: POSIX calls

    static func openDirectory(_ path: String) throws(SystemError) -> Int32 {
        try retrying("open directory", path: path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    /// Opens a source for reading. `O_NONBLOCK` is not used: a FIFO source waits for its writer.
    static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        try retrying("open", path: path) { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
    }

    /// Creates `name` in `directory`, failing with `EEXIST` if anything (even a dangling symlink)
    /// is there; the mode is 0666 and the kernel applies the umask.
    static func createExclusive(in directory: Int32, _ name: String, reportedAs path: String) throws(SystemError) -> Int32 {
        try retrying("create a temporary file in", path: path) {
            openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
    }

    /// `fstatat(2)` without following a final symlink; nil when nothing is there.
    static func statusIfPresent(in directory: Int32, _ name: String, reportedAs path: String) throws(SystemError) -> stat? {
        var raw = stat()
        while fstatat(directory, name, &raw, AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return nil }
            if errno != EINTR { throw .current("stat", path: path) }
        }
        return raw
    }

    static func status(of descriptor: Int32, reportedAs path: String) throws(SystemError) -> stat {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { throw .current("stat", path: path) }
        return raw
    }

    static func link(in directory: Int32, _ from: String, to: String, reportedAs path: String) throws(SystemError) {
        // Flags 0: a symlink at `from` is linked itself, never followed.
        try retrying("link", path: path) { linkat(directory, from, directory, to, 0) }
    }

    static func rename(in directory: Int32, _ from: String, to: String, reportedAs path: String) throws(SystemError) {
        try retrying("rename", path: path) { renameat(directory, from, directory, to) }
    }

    static func unlink(in directory: Int32, _ name: String, reportedAs path: String) throws(SystemError) {
        try retrying("remove", path: path) { unlinkat(directory, name, 0) }
    }

    static func sync(_ descriptor: Int32, reportedAs path: String) throws(SystemError) {
        try retrying("fsync", path: path) { fsync(descriptor) }
    }

    /// Writes all of `bytes`, however many calls it takes.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, reportedAs path: String) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let wrote = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if wrote > 0 {
                done += wrote
            } else if wrote < 0 && errno == EINTR {
                continue
            } else {
                // A zero-byte write of a non-empty buffer means no progress is possible: call it full.
                throw SystemError(code: wrote == 0 ? ENOSPC : errno, operation: "write", path: path)
            }
        }
    }

    static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, reportedAs path: String) throws(SystemError) -> Int {
        while true {
            let got = read(descriptor, buffer.baseAddress, buffer.count)
            if got >= 0 { return got }
            if errno != EINTR { throw .current("read", path: path) }
        }
    }

    /// Takes an exclusive `flock(2)` without waiting; false when another open file holds one.
    static func tryLock(_ descriptor: Int32) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Takes an exclusive `flock(2)`, waiting for a holder (only ever a brief orphan sweep).
    static func lock(_ descriptor: Int32, reportedAs path: String) throws(SystemError) {
        try retrying("lock", path: path) { flock(descriptor, LOCK_EX) }
    }

    /// Runs `call` until it does not fail with `EINTR`; a negative result becomes a `SystemError`.
    @discardableResult
    private static func retrying(_ operation: String, path: String?, _ call: () -> Int32) throws(SystemError) -> Int32 {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw .current(operation, path: path) }
        }
    }
}
