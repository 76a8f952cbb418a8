import WharfSystem

/// The points of a move at which it has just changed the file system (or is about to start
/// doing so), in order. A move's observer hears each one, on the moving thread: a test stops
/// the process at each in turn and kills it, to see that no point loses a file.
public enum MoveStep: Sendable, Equatable {
    /// Every source was examined and every name chosen; nothing changed yet.
    case prepared
    /// Part of a file crossing file systems is in a temporary file (the destination path).
    case copying(FilePath)
    /// Everything crossing file systems is copied and synced under temporary names.
    case copied
    /// The item now at this destination path is in place (the rest may not be).
    case placed(FilePath)
    /// The destination folder (and the source folders of renamed items) are synced: every
    /// item is durably in its new place.
    case synced
    /// The original of an item that was copied across file systems now has a temporary name
    /// in its own folder (the source path it had).
    case setAside(FilePath)
    /// The move is decided: what remains is removing originals and kept-aside files.
    case committed
}
