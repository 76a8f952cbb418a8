import WharfSystem

/// Reading and writing through a lease, for clients that cannot touch the file system
/// themselves (a browser page, a sandbox, a remote editor).
///
/// Every call looks the lease up again (a revocation by any process takes effect at once),
/// opens the file afresh the way `GrantedFileOpener` does, and checks that the file opened is
/// the very one the lease was started on. A file replaced since the lease started is refused:
/// the client resolves again and learns `isStale`.
extension AccessStore {
    /// Reads up to `length` bytes (default and maximum `maximumTransferLength`) at `offset`.
    /// `eof` is true when the bytes returned reach the end of the file; at or past the end
    /// (any offset, up to 2^63 - 1) the read is empty and `eof` true.
    public func read(client: ClientID, accessId: String, offset: Int64 = 0,
                     length: Int? = nil) throws(AccessError) -> (bytes: [UInt8], eof: Bool) {
        guard offset >= 0 else { throw .invalidArgument("offset must not be negative") }
        let length = length ?? Self.maximumTransferLength
        guard length >= 0 else { throw .invalidArgument("length must not be negative") }
        guard length <= Self.maximumTransferLength else {
            throw .tooLarge("a read moves at most \(Self.maximumTransferLength) bytes per call; \(length) were asked")
        }
        let lease = try usableLease(client: client, accessId: accessId)
        let handle = try open(lease, mode: .read)
        do {
            let size = try handle.status().size
            if offset >= size { return ([], true) }
            // Never past the end: `offset + length` cannot overflow a file offset then.
            let bytes = try handle.read(at: offset, length: Int(min(Int64(length), size - offset)))
            return (bytes, bytes.count < length || offset + Int64(bytes.count) >= size)
        } catch { throw .io(error) }
    }

    /// Writes `bytes` at `offset`; with `truncate`, the file then ends right after them (write
    /// a whole document with offset 0 and truncate). Only through a read-write lease (a file the
    /// exporter wrote, or a folder it was given). Answers the number of bytes written.
    @discardableResult
    public func write(client: ClientID, accessId: String, bytes: [UInt8], offset: Int64 = 0,
                      truncate: Bool = false) throws(AccessError) -> Int {
        guard offset >= 0 else { throw .invalidArgument("offset must not be negative") }
        guard bytes.count <= Self.maximumTransferLength else {
            throw .tooLarge("a write moves at most \(Self.maximumTransferLength) bytes per call; \(bytes.count) were given")
        }
        let lease = try usableLease(client: client, accessId: accessId)
        guard !lease.readOnly else {
            throw .readOnly("this access came from an importer and allows reading only")
        }
        let handle = try open(lease, mode: .write)
        do {
            try handle.write(bytes, at: offset)
            if truncate { try handle.truncate(to: offset + Int64(bytes.count)) }
        } catch { throw .io(error) }
        return bytes.count
    }

    /// The lease `accessId` of `client`, if it still allows I/O on a regular file.
    private func usableLease(client: ClientID, accessId: String) throws(AccessError) -> LeaseState {
        try dropRevokedGrants()
        let lease = try sessions.withValue { state throws(AccessError) -> LeaseState in
            guard let lease = state.leases[accessId], lease.client == client else {
                if state.released[client]?.contains(accessId) == true {
                    throw .alreadyReleased("access \(accessId) was released; resolve the URL or bookmark again")
                }
                throw .unknownAccessId("this client holds no access with id \(accessId)")
            }
            return lease
        }
        guard lease.grantId != nil else { throw .accessDenied("this access was revoked") }
        guard !lease.isSymlink else {
            throw .accessDenied("this access is to a symbolic link itself (an unresolved alias); Wharf never reads "
                + "or writes through a link")
        }
        guard !lease.isDirectory else {
            throw .invalidArgument("this access is to a folder; resolve the URL of a file inside it to read or write it")
        }
        return lease
    }

    /// Opens the lease's file and checks it is the file the lease was started on.
    private func open(_ lease: LeaseState, mode: AccessFileHandle.Mode) throws(AccessError) -> AccessFileHandle {
        let opened = try GrantedFileOpener.openAndDescribe(target: lease.path, anchor: lease.anchor,
                                                           granted: lease.grantFingerprint, mode: mode)
        let (handle, status, fingerprint) = (opened.handle, opened.status, opened.fingerprint)
        guard status.kind == .regular, fingerprint.matches(lease.fingerprint) else {
            throw .accessDenied("the file is no longer the one this access was started on (it was replaced); "
                + "resolve it again")
        }
        return handle
    }
}
