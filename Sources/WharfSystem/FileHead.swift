#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads the first bytes of a file, for content sniffing.
///
/// Sniffing must never read a whole file (a multi-gigabyte video is identified from its first
/// few KiB) and must not disturb the file: `O_NOATIME` keeps the access time untouched where
/// the kernel allows it (only the owner or root may ask; otherwise the open is retried without
/// it), and `O_NONBLOCK` keeps a FIFO that slipped past the caller's `stat` from blocking.
public enum FileHead {
    /// Fills `buffer` from the start of the file at `path` (following symlinks) and returns how
    /// many bytes were read: fewer than the buffer holds only when the file is shorter.
    public static func read(
        _ path: String, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> Int {
        let descriptor = try open(path)
        defer { close(descriptor) }
        var filled = 0
        while filled < buffer.count {
            let count = Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw .current("read", path: path)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// `O_NOATIME`, which Glibc only exposes under `_GNU_SOURCE`; this is its value on x86-64,
    /// ARM and the other architectures with the generic Linux flag layout.
    private static let openNoAccessTime: Int32 = 0o1000000

    private static func open(_ path: String) throws(SystemError) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        while true {
            var descriptor = Glibc.open(path, flags | openNoAccessTime)
            if descriptor < 0 && errno == EPERM {
                descriptor = Glibc.open(path, flags)
            }
            if descriptor >= 0 { return descriptor }
            if errno == EINTR { continue }
            throw .current("open", path: path)
        }
    }
}
