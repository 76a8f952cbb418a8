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
        let item = try openGranted(client: client, url: url)
        guard let file = item.file else { throw .accessDenied("only a regular file can be read through a grant") }
        return (file, item.path)
    }

    /// A path a grant covers, as `contentTypes/identify` over the daemon may look at it: what it
    /// is, and a regular file open for reading its first bytes.
    public struct GrantedItem {
        /// Where it is now.
        public var path: FilePath
        public var status: FileStatus
        /// Nil for a folder: nothing of it is read, its kind and name say what it is.
        public var file: FileDescriptor?

        public init(path: FilePath, status: FileStatus, file: FileDescriptor?) {
            self.path = path
            self.status = status
            self.file = file
        }
    }

    /// Opens what a grant covering `url` reaches: a regular file for reading, a folder only to
    /// look at (`O_PATH`). Checked as ``openForReading(client:url:)`` checks it; a grant of a
    /// symbolic link itself is refused (a link is identified through its folder's grant).
    public func openGranted(client: ClientID, url: String) throws(AccessError) -> GrantedItem {
        let authorization = try authorize(client: client, url: url)
        guard !authorization.isSymlink else {
            throw .accessDenied("only a regular file or a folder can be opened through a grant")
        }
        let kind: FileStatus.Kind = authorization.isDirectory ? .directory : .regular
        let opened = try GrantedFileOpener.openAndDescribe(target: authorization.path, anchor: authorization.anchor,
                                                           granted: authorization.grantFingerprint,
                                                           mode: kind == .directory ? .directory : .read)
        guard opened.status.kind == kind, opened.fingerprint.matches(authorization.fingerprint) else {
            throw .accessDenied("the file is no longer the one that was granted")
        }
        return GrantedItem(path: authorization.path, status: opened.status,
                           file: kind == .regular ? opened.handle.descriptor : nil)
    }
}
