import WharfFileWriting
import WharfSystem

/// Moves a mover's files. The engine calls ``move(_:into:resolution:progress:cancellation:)``
/// on a background queue, never on the caller's thread; the default is ``SystemFileMover``.
/// Tests inject their own.
///
/// The contract is `FileMover`'s: every item or none, `MoveError.cancelled` after a requested
/// stop (what was moved is back), the new paths in the order of the items.
public protocol FileMoving: Sendable {
    /// The names (bytes) the items would take in `folder` that are taken there now.
    func conflicts(_ items: [MoveItem], in folder: FilePath) throws(MoveError) -> [[UInt8]]

    func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(MoveError) -> [FilePath]
}

/// ``FileMoving`` with `FileMover`: a rename within one file system, a synced copy and a
/// rename across them, all or nothing.
public struct SystemFileMover: FileMoving {
    public init() {}

    public func conflicts(_ items: [MoveItem], in folder: FilePath) throws(MoveError) -> [[UInt8]] {
        try FileMover.conflicts(items, in: folder)
    }

    public func move(
        _ items: [MoveItem], into folder: FilePath, resolution: MoveConflictResolution,
        progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(MoveError) -> [FilePath] {
        try FileMover.move(items, into: folder, resolution: resolution, progress: progress, cancellation: cancellation)
    }
}
