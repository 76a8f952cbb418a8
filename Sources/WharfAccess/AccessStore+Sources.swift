import Glibc
import WharfSystem

extension AccessStore {
    /// Opens, for reading, a file `client` holds a grant covering: how a daemon client names a
    /// document to export by path. What is opened is checked to be the file granted, exactly as
    /// `resolveAccess` checks it, and the open descriptor is what gets read, so a path swapped
    /// afterwards changes nothing. No lease is started. Looks at the disk: call it off the read
    /// loop.
    ///
    /// - Returns: the descriptor, and where the file is now.
    /// - Throws: ``AccessError/accessDenied(_:)`` when no grant covers `url` or the file is not
    ///   the one granted, or is a folder or a link.
    public func openForReading(client: ClientID, url: String) throws(AccessError) -> (FileDescriptor, FilePath) {
        let authorization = try authorize(client: client, url: url)
        guard !authorization.isDirectory && !authorization.isSymlink else {
            throw .accessDenied("only a regular file can be read through a grant")
        }
        let handle = try GrantedFileOpener.open(target: authorization.path, anchor: authorization.anchor,
                                                granted: authorization.grantFingerprint, mode: .read)
        let status: FileStatus
        let fingerprint: Fingerprint
        do {
            status = try handle.status()
            fingerprint = try Fingerprint.of(handle)
        } catch { throw .io(error) }
        guard status.kind == .regular, fingerprint.matches(authorization.fingerprint) else {
            throw .accessDenied("the file is no longer the one that was granted")
        }
        return (handle.descriptor, authorization.path)
    }
}
