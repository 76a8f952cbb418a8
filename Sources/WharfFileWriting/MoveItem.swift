import WharfSystem

/// One file or folder to move, as the app named it and as it was when it was granted.
public struct MoveItem: Sendable, Equatable {
    /// Absolute path of the file or folder to move. A symbolic link here is moved as a link,
    /// never followed.
    public var source: FilePath
    /// Who the source was when it was granted: the entry itself (`lstat`, so a link's own
    /// inode), as ``FileIdentity/of(_:followSymlinks:)`` gives it with `followSymlinks: false`.
    /// Another file found at `source` now fails the move with ``MoveError/sourceChanged(_:)``;
    /// nil skips the check.
    public var expected: FileIdentity?
    /// The name to take in the destination folder; nil keeps the source's own name. One
    /// component of bytes: no `/`, no NUL, not `.` or `..`, at most 255 bytes.
    public var name: [UInt8]?

    public init(source: FilePath, expected: FileIdentity? = nil, name: [UInt8]? = nil) {
        self.source = source
        self.expected = expected
        self.name = name
    }

    /// The name the item asks for in the destination folder.
    var requestedName: [UInt8] { name ?? source.lastComponent }
}
