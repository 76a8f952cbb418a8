import WharfSystem

/// Why a move moved nothing. Whatever the case, every source and every file in the destination
/// folder is where and as it was before.
public enum MoveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination path (the folder and the item's name) is taken and the resolution was
    /// ``MoveConflictResolution/fail``; or two items asked for the same name.
    case nameConflict(FilePath)
    /// The source is no longer the file that was granted (another inode at its path), or it
    /// changed while it was being copied across file systems.
    case sourceChanged(FilePath)
    /// The file (a source, or something inside a source folder) is of a kind that is not moved:
    /// a FIFO, a socket or a device, named in words (`a FIFO`).
    case unsupportedFileType(FilePath, String)
    /// The move was cancelled; what was moved went back.
    case cancelled
    /// A step failed on this file (a source, or the destination it was moving to): the cause
    /// says which call and why (`rename /a/b.txt: Permission denied`).
    case failed(FilePath, String)

    public var description: String {
        switch self {
        case .nameConflict(let path): "\(path) already exists"
        case .sourceChanged(let path): "\(path) changed since it was granted"
        case .unsupportedFileType(let path, let kind): "\(path) is \(kind), which cannot be moved"
        case .cancelled: "the move was cancelled"
        case .failed(let path, let cause): "could not move \(path): \(cause)"
        }
    }

    static func failed(_ path: FilePath, _ cause: SystemError) -> MoveError {
        .failed(path, cause.description)
    }
}
