import Glibc

extension FileDescriptor {
    /// The user that owns the file (`st_uid` from `fstat(2)`).
    public func ownerUserID() throws(SystemError) -> UInt32 {
        var raw = stat()
        guard fstat(self.raw, &raw) == 0 else { throw failure("fstat") }
        return raw.st_uid
    }
}
