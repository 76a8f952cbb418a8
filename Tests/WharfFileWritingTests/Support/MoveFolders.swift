import WharfSystem
import WharfTestSupport

/// Where a move test moves from and to: a source folder on the disk, or on a tmpfs of
/// `tmpfsSize` bytes when the move is to cross file systems (`across`), and a destination folder
/// on the disk, both in one scratch directory.
struct MoveFolders {
    let scratch = ScratchDirectory("wharf-mv")
    let from: FilePath
    var to: FilePath { scratch.path("to") }

    init(across: Bool, tmpfsSize: Int) throws {
        from = across ? try scratch.tmpfs("from", size: tmpfsSize) : scratch.makeDirectory("from")
        scratch.makeDirectory("to")
    }

    /// The Wharf temporaries left in either folder.
    func temporaries() -> Set<String> {
        scratch.temporaries(in: from).union(scratch.temporaries(in: to))
    }
}
