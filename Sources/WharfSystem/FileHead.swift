import Glibc

/// Reads the first bytes of a file, for content sniffing.
///
/// Sniffing must never read a whole file (a multi-gigabyte video is identified from its first
/// few KiB) and must not disturb the file: `O_NOATIME` keeps the access time untouched where
/// the kernel allows it (only the owner or root may ask; otherwise the open is retried without
/// it), and `O_NONBLOCK` keeps a FIFO that slipped past the caller's `stat` from blocking.
public enum FileHead {
    /// Fills `buffer` from the start of the file at `path` (following symlinks) and returns how
    /// many bytes were read: fewer than the buffer holds only when the file is shorter.
    public static func read(_ path: FilePath, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try read(into: buffer) { flags throws(SystemError) in try FileDescriptor.open(path, flags) }
    }

    /// The same for `name` inside the open `directory` (a listing reads entries this way,
    /// without building their paths).
    public static func read(
        _ name: FilePath, in directory: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> Int {
        try read(into: buffer) { flags throws(SystemError) in try directory.open(name, flags) }
    }

    /// `O_NOATIME`, which Glibc only exposes under `_GNU_SOURCE`; this is its value on x86-64,
    /// ARM and the other architectures with the generic Linux flag layout.
    private static let openNoAccessTime: Int32 = 0o1000000

    private static func read(
        into buffer: UnsafeMutableRawBufferPointer, opening open: (Int32) throws(SystemError) -> FileDescriptor
    ) throws(SystemError) -> Int {
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY
        let file: FileDescriptor
        do {
            file = try open(flags | openNoAccessTime)
        } catch where error.code == EPERM {
            file = try open(flags)
        }
        return try file.read(filling: buffer)
    }
}
