import WharfSystem

/// One item of a move and the state of its journey, which says how to undo it.
final class MoveEntry {
    /// How the item reached its new place.
    enum Placement {
        /// Renamed there from its source folder (one file system).
        case renamed
        /// Its copy was renamed there from a temporary name (across file systems).
        case copied
    }

    /// Where the file or folder that was at the destination name is kept until the end.
    enum Backup {
        /// A second hard link under a temporary name in the folder: the name itself was then
        /// replaced in one rename, so it never went missing.
        case link(FilePath)
        /// Renamed to an aside name (a folder, or where hard links are refused): never swept,
        /// so a crash leaves it hidden but not lost.
        case aside(FilePath)
    }

    let item: MoveItem
    let sourceDirectory: FileDescriptor
    /// The source's name in `sourceDirectory`.
    let sourceName: FilePath
    /// What the source was when the move began (`lstat`).
    let status: FileStatus
    /// The name the item takes in the destination folder, and the path that makes.
    var name: FilePath
    var destination: FilePath
    /// The item is already in the folder under that name: nothing to do.
    var alreadyThere = false
    /// Its source lies on another file system than the folder: it is copied.
    var crossesFileSystems = false
    /// The resolution is to replace, and something was at the name when the move began.
    var replacing = false
    /// The copy, while it has a temporary name in the destination folder.
    var staged: StagedCopy?
    var placement: Placement?
    var backup: Backup?
    /// The original's temporary name in `sourceDirectory` once it was set aside for removal.
    var setAside: FilePath?

    init(item: MoveItem, sourceDirectory: FileDescriptor, sourceName: FilePath, status: FileStatus, name: FilePath, destination: FilePath) {
        self.item = item
        self.sourceDirectory = sourceDirectory
        self.sourceName = sourceName
        self.status = status
        self.name = name
        self.destination = destination
    }

    var isDirectory: Bool { status.kind == .directory }
}

/// A copy of an item made across file systems, under a temporary name in the destination
/// folder until it is renamed into place.
struct StagedCopy {
    let name: FilePath
    /// The copy's inode (of its top folder, for a folder), to make sure undoing removes only it.
    let inode: UInt64
}
