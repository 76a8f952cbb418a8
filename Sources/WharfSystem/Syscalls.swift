import Glibc

/// System calls that work relative to a directory descriptor, and the Linux extensions.
///
/// WharfSystem is Wharf's one door to the C library: outside it, no module calls `open`,
/// `read`, `rename` and the like directly (a test checks). Every call here retries on `EINTR`
/// and reports failure as a `SystemError` naming the operation and the file, so the code above
/// reads as a sequence of steps. Names relative to a directory are ``FilePath``s of one
/// component, kept as bytes. The Linux-only calls the writer depends on
/// (`renameat2`, `copy_file_range`, `sync_file_range`, `fallocate`, `fstatfs`)
/// are declared by glibc only under `_GNU_SOURCE`,
/// which Swift's `Glibc` module does not see, and `syscall(2)` is variadic and cannot be called
/// from Swift; so they are looked up once by name with `dlsym`. A missing symbol (an old C
/// library) reads as `ENOSYS`, which sends callers down their fallback paths.
public enum Syscalls {
    // MARK: Linux extensions, resolved at run time

    /// `RENAME_NOREPLACE` from `<linux/fs.h>`: fail with `EEXIST` instead of replacing.
    public static let renameNoReplace: UInt32 = 1
    /// `RENAME_EXCHANGE` from `<linux/fs.h>`: swap the two names atomically.
    public static let renameExchange: UInt32 = 2

    private typealias RenameAt2 = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
    ) -> Int32
    private typealias CopyFileRange = @convention(c) (
        Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
    ) -> Int
    private typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32
    private typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// C function pointers resolved once.
    ///
    /// `@unchecked Sendable`: C function pointers are not marked `Sendable`; these are resolved
    /// once and never change, so sharing them is safe.
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

    /// For the two-directory `renameat2` in MovingSyscalls.swift.
    static var renameat2Function: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? {
        extensions.renameat2
    }

    /// `renameat2(2)`; `ENOSYS` when the C library lacks it.
    public static func renameat2(
        in directory: FileDescriptor, _ from: FilePath, _ to: FilePath, flags: UInt32, reportedAs path: FilePath
    ) throws(SystemError) {
        guard let call = extensions.renameat2 else {
            throw SystemError(code: ENOSYS, operation: "renameat2", path: path)
        }
        try retrying("rename", path: path) {
            from.withCString { from in to.withCString { to in call(directory.raw, from, directory.raw, to, flags) } }
        }
    }

    /// What a kernel-side copy call did.
    public enum KernelCopy: Equatable {
        /// This many bytes moved; 0 means the kernel saw the end of the source.
        case copied(Int)
        /// It failed with this `errno`.
        case failed(Int32)
    }

    /// `copy_file_range(2)` using and advancing both descriptors' file offsets. `ENOSYS` when
    /// the C library lacks it.
    public static func copyFileRange(from source: FileDescriptor, to destination: FileDescriptor, count: Int) -> KernelCopy {
        guard let call = extensions.copyFileRange else { return .failed(ENOSYS) }
        while true {
            let copied = call(source.raw, nil, destination.raw, nil, count, 0)
            if copied >= 0 { return .copied(copied) }
            if errno != EINTR { return .failed(errno) }
        }
    }

    /// `sendfile(2)` from the source's file offset.
    public static func sendFile(from source: FileDescriptor, to destination: FileDescriptor, count: Int) -> KernelCopy {
        while true {
            let copied = sendfile(destination.raw, source.raw, nil, count)
            if copied >= 0 { return .copied(copied) }
            if errno != EINTR { return .failed(errno) }
        }
    }

    /// `sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`: starts writing the range back to disk
    /// without waiting for it. Only a hint (durability still comes from `fsync`), so failures
    /// and a missing symbol are ignored.
    public static func startWriteback(_ descriptor: FileDescriptor, offset: Int64, count: Int64) {
        _ = extensions.syncFileRange?(descriptor.raw, offset, count, 2)
    }

    /// `fallocate(2)` with `FALLOC_FL_KEEP_SIZE`: reserves blocks for `count` bytes without
    /// changing the file's size (so a source that turns out shorter leaves no zeros behind).
    /// Returns the `errno`, or nil on success.
    public static func reserveSpace(_ descriptor: FileDescriptor, count: Int64) -> Int32? {
        guard let call = extensions.fallocate else { return ENOSYS }
        while call(descriptor.raw, 1, 0, count) != 0 {
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
    public static func isMemoryBacked(_ descriptor: FileDescriptor) -> Bool {
        guard let call = extensions.fstatfs else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        guard call(descriptor.raw, buffer.baseAddress!) == 0 else { return false }
        let type = buffer.load(as: Int.self)
        let tmpfsMagic = 0x0102_1994, ramfsMagic = 0x8584_58F6
        return type == tmpfsMagic || type == ramfsMagic
    }

    // MARK: POSIX calls relative to a directory

    /// Opens a directory to work inside it (`O_DIRECTORY`, following symlinks on the way).
    public static func openDirectory(_ path: FilePath) throws(SystemError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY)
        } catch {
            throw SystemError(code: error.code, operation: "open directory", path: path)
        }
    }

    /// `O_PATH`, which Swift's Glibc module leaves out (it is behind `_GNU_SOURCE`): names a
    /// file or directory without opening it for I/O (a folder that may only be searched can be
    /// passed through). The kernel's generic value, shared by x86-64 and arm64
    /// (`include/uapi/asm-generic/fcntl.h`).
    public static let openPathOnly: Int32 = 0o10_000_000

    /// Opens the directory at the absolute `path` for reading without following a symbolic link
    /// anywhere in it: walked down from `/` one component at a time, each refusing a link. For a
    /// path that was resolved once, when a human chose it: a directory on the way swapped for a
    /// link since then (by anyone who may write its parent) is refused instead of followed to
    /// wherever the link leads.
    public static func openDirectoryWithoutLinks(_ path: FilePath) throws(SystemError) -> FileDescriptor {
        let components = path.normalized.bytes.split(separator: FilePath.slash)
        do {
            var current = try FileDescriptor.open(.root, (components.isEmpty ? O_RDONLY : openPathOnly) | O_DIRECTORY)
            for (index, component) in components.enumerated() {
                let access = index == components.count - 1 ? O_RDONLY : openPathOnly
                current = try current.open(FilePath(unchecked: Array(component)), access | O_DIRECTORY | O_NOFOLLOW)
            }
            return current
        } catch {
            let linked = error.code == ELOOP || error.code == ENOTDIR
            throw SystemError(code: error.code, operation: linked ? "open directory (never through a symbolic link)" : "open directory",
                              path: path)
        }
    }

    /// Opens a source for reading without waiting: `O_NONBLOCK`, because opening a FIFO
    /// otherwise waits for a writer, and nothing can interrupt that wait (a client that names a
    /// FIFO and goes away would hold the open for ever). Regular files ignore the flag; a
    /// reader of anything else waits in `poll`, where it can give up.
    public static func openForReading(_ path: FilePath) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
    }

    /// Creates `name` in `directory`, failing with `EEXIST` if anything (even a dangling symlink)
    /// is there; the mode is 0666 and the kernel applies the umask. The file stands for
    /// `destination` (a temporary file for it): later errors on it name `destination`, and a
    /// failure to create it names the directory.
    public static func createExclusive(
        in directory: FileDescriptor, _ name: FilePath, standingFor destination: FilePath
    ) throws(SystemError) -> FileDescriptor {
        do {
            return try directory.open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666, reportedAs: destination)
        } catch {
            throw SystemError(code: error.code, operation: "create a temporary file in", path: directory.path ?? destination.directory)
        }
    }

    /// `fstatat(2)` without following a final symlink; nil when nothing is there.
    public static func statusIfPresent(in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) -> FileStatus? {
        var raw = stat()
        while name.withCString({ fstatat(directory.raw, $0, &raw, AT_SYMLINK_NOFOLLOW) }) != 0 {
            if errno == ENOENT { return nil }
            if errno != EINTR { throw .current("stat", path: path) }
        }
        return FileStatus(raw)
    }

    /// `linkat(2)` within one directory. Flags 0: a symlink at `from` is linked itself, never followed.
    public static func link(in directory: FileDescriptor, _ from: FilePath, to: FilePath, reportedAs path: FilePath) throws(SystemError) {
        try retrying("link", path: path) {
            from.withCString { from in to.withCString { to in linkat(directory.raw, from, directory.raw, to, 0) } }
        }
    }

    /// `renameat(2)` within one directory.
    public static func rename(in directory: FileDescriptor, _ from: FilePath, to: FilePath, reportedAs path: FilePath) throws(SystemError) {
        try retrying("rename", path: path) {
            from.withCString { from in to.withCString { to in renameat(directory.raw, from, directory.raw, to) } }
        }
    }

    /// `unlinkat(2)` of a file (not a directory).
    public static func unlink(in directory: FileDescriptor, _ name: FilePath, reportedAs path: FilePath) throws(SystemError) {
        try retrying("remove", path: path) { name.withCString { unlinkat(directory.raw, $0, 0) } }
    }

    /// `mkdir(2)` of `path` and every missing parent, each with `mode` (existing ones are left
    /// as they are).
    public static func makeDirectories(_ path: FilePath, mode: mode_t) throws(SystemError) {
        var current: [UInt8] = []
        for component in path.normalized.bytes.split(separator: FilePath.slash) {
            current.append(FilePath.slash)
            current.append(contentsOf: component)
            let step = FilePath(unchecked: current)
            while step.withCString({ mkdir($0, mode) }) != 0 {
                if errno == EEXIST { break }
                if errno != EINTR { throw .current("mkdir", path: step) }
            }
        }
    }

    /// `fchmod(2)`.
    public static func changeMode(_ file: FileDescriptor, _ mode: mode_t) throws(SystemError) {
        try retrying("chmod", path: file.path) { fchmod(file.raw, mode) }
    }

    /// `fchown(2)`; `nil` leaves that id as it is.
    public static func changeOwner(_ file: FileDescriptor, owner: UInt32?, group: UInt32?) throws(SystemError) {
        let unchanged = UInt32.max  // (uid_t)-1 and (gid_t)-1
        try retrying("chown", path: file.path) { fchown(file.raw, owner ?? unchanged, group ?? unchanged) }
    }

    /// Takes an exclusive `flock(2)` without waiting; false when another open file holds one.
    public static func tryLock(_ descriptor: FileDescriptor) -> Bool {
        while flock(descriptor.raw, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Takes an exclusive `flock(2)`, waiting for a holder (only ever a brief orphan sweep).
    public static func lock(_ descriptor: FileDescriptor) throws(SystemError) {
        try retrying("lock", path: descriptor.path) { flock(descriptor.raw, LOCK_EX) }
    }

    /// Runs `call` until it does not fail with `EINTR`; a negative result becomes a `SystemError`.
    @discardableResult
    static func retrying(_ operation: String, path: FilePath?, _ call: () -> Int32) throws(SystemError) -> Int32 {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw path.map { .current(operation, path: $0) } ?? .current(operation) }
        }
    }
}
