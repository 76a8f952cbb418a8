import Glibc
import WharfSystem

extension MoveTransaction {
    /// The bytes a move across file systems will copy for `entry`.
    func plannedBytes(of entry: MoveEntry) throws(MoveError) -> Int64 {
        entry.status.kind == .regular ? entry.status.size : 0
    }

    /// Copies every item that crosses file systems into a temporary name in the folder.
    func stageCopies() throws(MoveError) {
        for entry in entries where entry.crossesFileSystems {
            try checkCancelled()
            try stage(entry)
        }
    }

    func stage(_ entry: MoveEntry) throws(MoveError) {
        throw .failed(entry.item.source, SystemError(code: EXDEV, operation: "move across file systems (not supported yet)", path: entry.item.source))
    }
}
