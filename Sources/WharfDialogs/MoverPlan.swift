import WharfFileWriting
import WharfSystem

/// A mover's files, as presented: what the human is shown and what is moved.
struct MoverPlan: Sendable {
    var files: [MoverFile]

    /// What the mover is asked to move: each file at its path, checked to still be the file
    /// granted (another file put at the path is never moved in its place).
    var items: [MoveItem] { files.map { MoveItem(source: $0.path, expected: $0.identity) } }
}

/// What `move` decided: the folder, checked, and how names taken there are settled. Built
/// outside the engine's lock (it looks at the disk), committed under it.
struct MoveJob: Sendable {
    var plan: MoverPlan
    /// Resolved (no symbolic link on the way) and a folder.
    var folder: FilePath
    var resolution: MoveConflictResolution

    /// Checks the human's folder: it must be a folder (a link to one is followed, once, now)
    /// and must not lie inside a folder being moved (nothing can be moved into itself).
    static func folder(_ text: String, plan: MoverPlan) throws(DialogError) -> FilePath {
        let requested = try ImportChoice.path(text)
        let shown = requested.url
        let folder: FilePath
        do {
            folder = try requested.resolved()
        } catch {
            throw .rejectedChoice(url: shown, reason: "it cannot be used: \(error.reason)")
        }
        guard (try? FileStatus.of(folder))?.kind == .directory else {
            throw .rejectedChoice(url: shown, reason: "a mover's files are moved into a folder, and it is not one")
        }
        if let inside = movedFolder(containing: folder, plan: plan) {
            throw .rejectedChoice(url: shown, reason: insideReason(inside))
        }
        return folder
    }

    /// The folder being moved that `folder` is (or lies inside), if any.
    static func movedFolder(containing folder: FilePath, plan: MoverPlan) -> FilePath? {
        plan.files.first { $0.isDirectory && !$0.isSymlink && $0.path.contains(folder) }?.path
    }

    static func insideReason(_ moved: FilePath) -> String {
        "it is inside \(moved), which is being moved: nothing can be moved into itself"
    }
}
