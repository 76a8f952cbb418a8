import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// Grants belong to the session that received them; bookmarks to the app identity.
@Suite struct GrantScopeTests {
    let directory = WorkDirectory()

    @Test func anotherClientOfTheSameAppHasNoAccessThroughAGrant() throws {
        let store = try memoryStore()
        let file = directory.file("secret.txt")
        writeFile(file, "s")
        try grant(store, file, app: "editor", client: "window-1")

        _ = try store.resolve(app: "editor", client: "window-1", url: url(file))
        let error = accessError { () throws(AccessError) in
            try store.resolve(app: "editor", client: "window-2", url: url(file))
        }
        #expect(error.map { isDenied($0, revealing: [file]) } == true)
        #expect(try store.list(app: "editor", client: "window-2").isEmpty)
    }

    @Test func aClientWithoutAGrantIsDeniedWithoutLearningAnything() throws {
        let store = try memoryStore()
        let exists = directory.file("exists.txt")
        writeFile(exists, "x")
        let missing = directory.file("missing.txt")
        let errors = [exists, missing].map { path in
            accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(path)) }
        }
        // The same answer whether or not the file exists, and no path in it.
        #expect(errors[0] == errors[1])
        #expect(errors[0].map { isDenied($0, revealing: [exists, missing]) } == true)
    }

    @Test func aGrantInAnotherStoreInstanceIsNotThisSessions() throws {
        let state = WorkDirectory()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (first, _) = try AccessStore.open(stateDirectory: state.path)
        let (second, _) = try AccessStore.open(stateDirectory: state.path)
        // Two Wharf processes number their clients independently: "c1" in one is not "c1" in the other.
        try grant(first, file, client: "c1")
        let error = accessError { () throws(AccessError) in try second.resolve(app: "editor", client: "c1", url: url(file)) }
        #expect(error.map { isDenied($0) } == true)
        _ = try first.resolve(app: "editor", client: "c1", url: url(file))
    }

    @Test func aBookmarkServesEveryClientOfItsAppAndNoOtherApp() throws {
        let store = try memoryStore()
        let file = directory.file("doc.txt")
        writeFile(file, "doc")
        try grant(store, file, app: "editor", client: "window-1")
        let bookmark = try store.createBookmark(app: "editor", client: "window-1", url: url(file))

        // Another session of the same app resolves it and gains a grant of its own.
        let lease = try store.resolve(app: "editor", client: "window-2", bookmark: bookmark)
        #expect(lease.path == file && !lease.isStale && lease.bookmark == bookmark)
        #expect(try store.read(client: "window-2", accessId: lease.accessId).bytes == Array("doc".utf8))
        _ = try store.resolve(app: "editor", client: "window-2", url: url(file))

        // Another app identity learns nothing, not even the last known path.
        let error = accessError { () throws(AccessError) in try store.resolve(app: "viewer", client: "v1", bookmark: bookmark) }
        #expect(error == .bookmarkInvalid("no such bookmark for this app (never issued, revoked, or another app's)",
                                          lastKnownPath: nil))
    }

    @Test func bookmarkingNeedsAGrant() throws {
        let store = try memoryStore()
        let file = directory.file("doc.txt")
        writeFile(file, "doc")
        let error = accessError { () throws(AccessError) in try store.createBookmark(app: "editor", client: "c1", url: url(file)) }
        #expect(error.map { isDenied($0, revealing: [file]) } == true)
    }

    @Test func importerGrantsAreReadOnlyAndExporterGrantsReadWrite() throws {
        let store = try memoryStore()
        let picked = directory.file("picked.txt")
        let written = directory.file("written.txt")
        writeFile(picked, "p")
        writeFile(written, "w")
        try grant(store, picked, readOnly: true)
        try grant(store, written, readOnly: false)
        #expect(try store.resolve(app: "editor", client: "c1", url: url(picked)).readOnly)
        #expect(try !store.resolve(app: "editor", client: "c1", url: url(written)).readOnly)

        // Granting again keeps the wider rights of the two.
        try grant(store, written, readOnly: true)
        #expect(try !store.resolve(app: "editor", client: "c1", url: url(written)).readOnly)
    }

    /// The rights a grant gave are for the file they were given for. An export's file,
    /// writable, is replaced by another file (or a folder) of the same name, which the human
    /// then picks in an importer, for reading: that pick is read-only. The writing consent was
    /// for a file that is no longer there.
    @Test func anotherFilePickedAtAWrittenPathIsOnlyReadable() throws {
        let store = try memoryStore()
        let written = directory.file("report.txt")
        writeFile(written, "exported")
        try grant(store, written, readOnly: false)
        atomicSave(written, "someone else's")
        try grant(store, written, readOnly: true)
        #expect(try store.resolve(app: "editor", client: "c1", url: url(written)).readOnly)

        let folder = directory.file("project")
        writeFile(folder, "exported")
        try grant(store, folder, readOnly: false)
        #expect(removeFile(folder))
        makeDirectory(folder)
        writeFile(folder + "/plan.txt", "private")
        try grant(store, folder, readOnly: true)
        #expect(try store.resolve(app: "editor", client: "c1", url: url(folder + "/plan.txt")).readOnly)
    }

    @Test func aDirectoryGrantCoversWhatIsInsideIt() throws {
        let store = try memoryStore()
        let templates = directory.file("templates")
        makeDirectory(templates)
        makeDirectory(templates + "/letters")
        writeFile(templates + "/letters/formal.txt", "Dear")
        try grant(store, templates)

        let folder = try store.resolve(app: "editor", client: "c1", url: url(templates))
        #expect(folder.isDirectory && folder.path == templates)
        let inside = try store.resolve(app: "editor", client: "c1", url: url(templates + "/letters/formal.txt"))
        #expect(!inside.isDirectory && inside.readOnly)
        #expect(try store.read(client: "c1", accessId: inside.accessId).bytes == Array("Dear".utf8))
        // A bookmark can be made for something inside it.
        _ = try store.createBookmark(app: "editor", client: "c1", url: url(templates + "/letters/formal.txt"))
    }

    @Test func aSymlinkInsideAGrantedDirectoryIsFollowedOnlyWhileItStaysInside() throws {
        let store = try memoryStore()
        let granted = directory.file("granted")
        makeDirectory(granted)
        writeFile(granted + "/real.txt", "inside")
        makeSymlink("real.txt", at: granted + "/alias.txt")
        let outside = directory.file("outside.txt")
        writeFile(outside, "outside")
        makeSymlink(outside, at: granted + "/escape.txt")
        try grant(store, granted)

        let alias = try store.resolve(app: "editor", client: "c1", url: url(granted + "/alias.txt"))
        #expect(alias.path == granted + "/real.txt")
        #expect(try store.read(client: "c1", accessId: alias.accessId).bytes == Array("inside".utf8))

        let error = accessError { () throws(AccessError) in
            try store.resolve(app: "editor", client: "c1", url: url(granted + "/escape.txt"))
        }
        #expect(error.map { isDenied($0, revealing: [outside]) } == true)
    }
}
