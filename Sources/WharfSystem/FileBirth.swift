import Glibc

/// When a file was created (`stx_btime` of `statx(2)`), in nanoseconds since the epoch.
///
/// An inode number is reused as soon as its file is deleted — ext4 hands the same number to the
/// next file created nearby — so "same device and inode" alone can mistake a new, unrelated file
/// for a deleted one. The birth time tells them apart where the file system records it (ext4,
/// btrfs, xfs, tmpfs on current kernels); where it does not, the answer is nil and callers judge
/// by inode alone.
///
/// Swift's Glibc module does not import `statx` (it is behind `_GNU_SOURCE`), so the function is
/// looked up at run time (glibc ≥ 2.28) and the kernel's fixed `struct statx` layout is read by
/// offset.
public enum FileBirth {
    private typealias StatxFunction = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer
    ) -> Int32

    private static let statxFunction: StatxFunction? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "statx") else { return nil }
        return unsafeBitCast(symbol, to: StatxFunction.self)
    }()

    private static let maskBirthTime: UInt32 = 0x800   // STATX_BTIME
    private static let maskInode: UInt32 = 0x100       // STATX_INO
    private static let emptyPath: Int32 = 0x1000       // AT_EMPTY_PATH
    private static let currentDirectory: Int32 = -100  // AT_FDCWD
    private static let structSize = 256

    /// The birth time of the open file `descriptor`, or nil when unknown.
    public static func of(descriptor: Int32) -> Int64? {
        query(directory: descriptor, path: "", flags: emptyPath)?.birth
    }

    /// The inode and birth time of `path` (a symbolic link itself unless `followSymlinks`);
    /// nil when the file cannot be examined, `birth` nil when the file system does not say.
    public static func of(_ path: FilePath, followSymlinks: Bool) -> (inode: UInt64, birth: Int64?)? {
        guard let result = path.withCString({
                  query(directory: currentDirectory, path: $0, flags: followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW)
              }),
              let inode = result.inode else { return nil }
        return (inode, result.birth)
    }

    private static func query(directory: Int32, path: UnsafePointer<CChar>, flags: Int32) -> (inode: UInt64?, birth: Int64?)? {
        guard let statx = statxFunction else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: structSize, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: structSize)
        var status: Int32
        repeat {
            status = statx(directory, path, flags, maskBirthTime | maskInode, buffer)
        } while status != 0 && errno == EINTR
        guard status == 0 else { return nil }
        // struct statx: stx_mask at 0, stx_ino at 32, stx_btime { tv_sec: s64, tv_nsec: u32 } at 80.
        let mask = buffer.load(fromByteOffset: 0, as: UInt32.self)
        let inode = mask & maskInode != 0 ? buffer.load(fromByteOffset: 32, as: UInt64.self) : nil
        guard mask & maskBirthTime != 0 else { return (inode, nil) }
        let seconds = buffer.load(fromByteOffset: 80, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: 88, as: UInt32.self)
        return (inode, seconds &* 1_000_000_000 &+ Int64(nanoseconds))
    }
}
