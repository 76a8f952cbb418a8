import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// A mover moved a granted file or folder: the client's rights and the bookmarks follow it.
@Suite struct MoveTests {
    let directory = WorkDirectory()
    let state = WorkDirectory()

    @Test func aMovedFolderTakesItsGrantsAndTheBookmarksInsideItAlong() throws {
        let folder = directory.file("project")
        makeDirectory(folder)
        writeFile(folder.appending("notes.txt"), "n")
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(store, folder, readOnly: false)
        try grant(store, folder.appending("notes.txt"))
        let bookmark = try store.createBookmark(app: "editor", client: "c1", url: url(folder.appending("notes.txt")))
        let source = try store.grantedFile(client: "c1", url: url(folder))
        #expect(source.isDirectory && !source.readOnly)

        // Far away: no search near the old place finds it.
        let far = directory.file("a/b/c")
        makeDirectory(far)
        let moved = far.appending("project")
        move(folder, moved)
        try store.moved(app: "editor", client: "c1", source: source, to: moved,
                        identity: identity(moved), birth: FileBirth.of(moved, followSymlinks: false)?.birth)

        let denied = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(folder)) }
        #expect(denied.map { isDenied($0) } == true, "the old place's grant ended: \(String(describing: denied))")
        let lease = try store.resolve(app: "editor", client: "c1", url: url(moved.appending("notes.txt")))
        #expect(lease.readOnly, "the file granted itself keeps its own rights")
        let folderLease = try store.resolve(app: "editor", client: "c1", url: url(moved))
        #expect(!folderLease.readOnly && folderLease.isDirectory, "the folder keeps its rights")
        let resolved = try store.resolve(app: "editor", client: "c1", bookmark: bookmark)
        #expect(resolved.path == moved.appending("notes.txt"))
        #expect(!resolved.isStale, "rewritten, not found by a search")
    }
}
