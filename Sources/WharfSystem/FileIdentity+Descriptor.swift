#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileIdentity {
    /// The identity of the file an open descriptor refers to (`fstat(2)` and `fstatvfs(3)`).
    ///
    /// Taking the identity from the descriptor that was just opened, rather than from the path
    /// again, records exactly the file that was checked, even if the path is swapped meanwhile.
    public static func of(descriptor: Int32, path: String? = nil) throws(SystemError) -> FileIdentity {
        let status = try FileStatus.of(descriptor: descriptor, path: path)
        var fs = statvfs()
        guard fstatvfs(descriptor, &fs) == 0 else { throw .current("fstatvfs", path: path) }
        return FileIdentity(device: status.device, inode: status.inode, fileSystem: UInt64(fs.f_fsid))
    }
}
