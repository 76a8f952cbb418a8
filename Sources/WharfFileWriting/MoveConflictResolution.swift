/// What a move does with a name already taken in the destination folder.
public enum MoveConflictResolution: Sendable {
    /// Fail with ``MoveError/nameConflict(_:)`` naming the file; nothing is moved.
    case fail
    /// Replace what is there. The replaced file or folder is kept aside until the whole move
    /// has succeeded, and put back if it does not.
    case replace
    /// Give the moved item a free name instead, such as `name 2.txt` (``FileMover/freeName(for:in:)``).
    case keepBoth
}
