import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// Bookmarks survive restarts, follow editors' saves and moves, and cannot be forged or edited.
@Suite struct BookmarkTests {
    let directory = WorkDirectory()
    let state = WorkDirectory()

    /// A store on disk with `path` granted read-write to `c1` and bookmarked.
    func bookmarked(_ path: FilePath) throws -> (AccessStore, String) {
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(store, path, readOnly: false)
        return (store, try store.createBookmark(app: "editor", client: "c1", url: url(path)))
    }

    @Test func aBookmarkIsOpaqueAndCarriesAtLeast128RandomBits() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        #expect(!bookmark.contains("a.txt") && !bookmark.contains("/"))
        #expect(RandomTokens.bookmarkRandomBytes * 8 >= 128)
        // Bookmarking the same file again answers the same bookmark; another file, another one.
        #expect(try store.createBookmark(app: "editor", client: "c1", url: url(file)) == bookmark)
        let other = directory.file("b.txt")
        writeFile(other, "b")
        try grant(store, other)
        #expect(try store.createBookmark(app: "editor", client: "c1", url: url(other)) != bookmark)
    }

    @Test func aBookmarkSurvivesARestart() throws {
        let file = directory.file("a.txt")
        writeFile(file, "kept")
        let (store, bookmark) = try bookmarked(file)
        store.close()

        let (reopened, warnings) = try AccessStore.open(stateDirectory: state.path)
        #expect(warnings.isEmpty)
        // The session's grant ended with the process; the bookmark did not.
        let denied = accessError { () throws(AccessError) in try reopened.resolve(app: "editor", client: "c1", url: url(file)) }
        #expect(denied.map { isDenied($0) } == true)
        let lease = try reopened.resolve(app: "editor", client: "c9", bookmark: bookmark)
        #expect(!lease.isStale && lease.path == file && !lease.readOnly && lease.bookmark == bookmark)
        #expect(try reopened.read(client: "c9", accessId: lease.accessId).bytes == Array("kept".utf8))
    }

    /// An app's name is kept whole in the database, U+0000 and all: SQLite's text stopped at
    /// the first NUL, so 'victim\0evil' was stored as 'victim', whose bookmark it became (and
    /// its creator's no longer, after a restart). The protocol refuses such names; the store
    /// does not depend on it.
    @Test func anAppNameWithANULIsKeptWholeAcrossARestart() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, _) = try AccessStore.open(stateDirectory: state.path)
        try grant(store, file, app: "victim\u{0}evil")
        let bookmark = try store.createBookmark(app: "victim\u{0}evil", client: "c1", url: url(file))
        store.close()

        let (reopened, _) = try AccessStore.open(stateDirectory: state.path)
        let other = accessError { () throws(AccessError) in try reopened.resolve(app: "victim", client: "c2", bookmark: bookmark) }
        #expect(other != nil, "another app, named as the part before the NUL, resolved the bookmark")
        #expect(try reopened.resolve(app: "victim\u{0}evil", client: "c3", bookmark: bookmark).path == file)
        #expect(Set(try reopened.allEntries().map(\.app)) == ["victim\u{0}evil"])
    }

    @Test func aFolderBookmarkGivesBackTheFolderAndWhatIsInsideAfterARestart() throws {
        // SwiftUI's "choose templates directory" example: pick once, keep it across launches.
        let templates = directory.file("templates")
        makeDirectory(templates)
        writeFile(templates + "/letter.txt", "Dear")
        let (store, bookmark) = try bookmarked(templates)
        store.close()

        let (reopened, _) = try AccessStore.open(stateDirectory: state.path)
        let folder = try reopened.resolve(app: "editor", client: "c1", bookmark: bookmark)
        #expect(folder.isDirectory && !folder.isStale && folder.path == templates)
        let letter = try reopened.resolve(app: "editor", client: "c1", url: url(templates + "/letter.txt"))
        #expect(try reopened.read(client: "c1", accessId: letter.accessId).bytes == Array("Dear".utf8))
        // Renaming the folder is followed too.
        move(templates, directory.file("templates-2026"))
        let moved = try reopened.resolve(app: "editor", client: "c1", bookmark: bookmark)
        #expect(moved.isStale && moved.path == directory.file("templates-2026"))
    }

    /// A bookmark resolved for a session that has ended (the resolve was on its way as the
    /// session ended) is refused, and leaves no grant or lease that nothing would ever remove.
    @Test func aBookmarkResolvedAfterItsSessionEndedLeavesNothing() throws {
        let file = directory.file("late.txt")
        writeFile(file, "late")
        let (store, bookmark) = try bookmarked(file)
        store.endSession(client: "c2")
        let refused = accessError { () throws(AccessError) in
            try store.resolve(app: "editor", client: "c2", bookmark: bookmark, isLive: { false })
        }
        #expect(refused.map { isDenied($0) } == true)
        #expect(store.activeLeaseCount(client: "c2") == 0)
        #expect(try store.list(app: "editor", client: "c2").allSatisfy { $0.kind == .bookmark }, "no grant for c2")
        // A running session resolves it as before.
        #expect(try store.resolve(app: "editor", client: "c3", bookmark: bookmark, isLive: { true }).path == file)
    }

    @Test func anAtomicSaveMakesTheBookmarkStaleAtTheSamePath() throws {
        let file = directory.file("doc.txt")
        writeFile(file, "v1")
        let (store, bookmark) = try bookmarked(file)
        atomicSave(file, "v2")

        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(lease.isStale && lease.path == file && lease.bookmark == bookmark)
        #expect(try store.read(client: "c2", accessId: lease.accessId).bytes == Array("v2".utf8))
        // The bookmark was refreshed: it is fresh again.
        #expect(try !store.resolve(app: "editor", client: "c2", bookmark: bookmark).isStale)
    }

    @Test func aSaveThatKeepsTheOldFileAsABackupStillFollowsThePath() throws {
        // Emacs's default: rename the original to `name~`, write the new file under the name.
        let file = directory.file("doc.txt")
        writeFile(file, "v1")
        let (store, bookmark) = try bookmarked(file)
        move(file, file + "~")
        writeFile(file, "v2")

        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(lease.isStale && lease.path == file)
    }

    @Test func aRenameWithinTheDirectoryIsFoundByIdentity() throws {
        let file = directory.file("draft.txt")
        writeFile(file, "words")
        let (store, bookmark) = try bookmarked(file)
        for index in 0..<50 { writeFile(directory.file("noise-\(index).txt"), "n") }
        move(file, directory.file("final.txt"))

        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(lease.isStale && lease.path == directory.file("final.txt"))
        #expect(try store.read(client: "c2", accessId: lease.accessId).bytes == Array("words".utf8))
        let again = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(!again.isStale && again.path == directory.file("final.txt"))
    }

    @Test func aMoveToASiblingDirectoryIsFoundByIdentity() throws {
        makeDirectory(directory.file("inbox"))
        makeDirectory(directory.file("archive"))
        makeDirectory(directory.file("other"))
        let file = directory.file("inbox/report.txt")
        writeFile(file, "r")
        let (store, bookmark) = try bookmarked(file)
        move(file, directory.file("archive/report-2024.txt"))

        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(lease.isStale && lease.path == directory.file("archive/report-2024.txt"))
    }

    @Test func aRenamedParentDirectoryIsFoundByIdentity() throws {
        makeDirectory(directory.file("project"))
        let file = directory.file("project/main.txt")
        writeFile(file, "m")
        let (store, bookmark) = try bookmarked(file)
        move(directory.file("project"), directory.file("project-renamed"))

        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(lease.isStale && lease.path == directory.file("project-renamed/main.txt"))
    }

    @Test func aDeletedFileMakesTheBookmarkInvalidWithItsLastKnownPath() throws {
        let file = directory.file("gone.txt")
        writeFile(file, "g")
        let (store, bookmark) = try bookmarked(file)
        removeFile(file)

        let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c2", bookmark: bookmark) }
        guard case .bookmarkInvalid(_, let lastKnownPath)? = error else {
            Issue.record("expected bookmarkInvalid, got \(String(describing: error))")
            return
        }
        #expect(lastKnownPath == file)
    }

    @Test func aSymlinkSwappedInForABookmarkedFileIsNotFollowed() throws {
        let file = directory.file("doc.txt")
        let secret = directory.file("secret.txt")
        writeFile(file, "d")
        writeFile(secret, "s")
        let (store, bookmark) = try bookmarked(file)
        removeFile(file)
        makeSymlink(secret, at: file)

        let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c2", bookmark: bookmark) }
        guard case .bookmarkInvalid(let message, _)? = error else {
            Issue.record("expected bookmarkInvalid, got \(String(describing: error))")
            return
        }
        #expect(!message.contains(secret.description))
    }

    @Test func everyOneCharacterEditOfABookmarkIsInvalid() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        let characters = Array(bookmark)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567_wb1ABCXYZ019")
        var edits = 0
        for position in characters.indices {
            for replacement in alphabet where replacement != characters[position] {
                var edited = characters
                edited[position] = replacement
                let error = accessError { () throws(AccessError) in
                    try store.resolve(app: "editor", client: "c1", bookmark: String(edited))
                }
                guard case .bookmarkInvalid(_, nil)? = error else {
                    Issue.record("edit at \(position) to \(replacement) was not refused: \(String(describing: error))")
                    return
                }
                edits += 1
            }
        }
        #expect(edits > 1000)
        // Dropping or adding a character is refused too.
        for edited in [String(characters.dropLast()), bookmark + "a", String(characters.dropFirst())] {
            let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", bookmark: edited) }
            #expect(error.map { if case .bookmarkInvalid = $0 { true } else { false } } == true)
        }
        // The original still works.
        _ = try store.resolve(app: "editor", client: "c1", bookmark: bookmark)
    }

    @Test func aWellFormedButForgedBookmarkIsInvalid() throws {
        let store = try memoryStore()
        let forged = try RandomTokens.bookmark()
        #expect(RandomTokens.isWellFormedBookmark(forged))
        let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", bookmark: forged) }
        #expect(error == .bookmarkInvalid("no such bookmark for this app (never issued, revoked, or another app's)",
                                          lastKnownPath: nil))
    }

    @Test func revokingABookmarkRevokesTheGrantsResolvedFromIt() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)

        #expect(try store.revoke(app: "editor", url: nil as String?, bookmark: bookmark) == 1)
        let resolveError = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c2", bookmark: bookmark) }
        #expect(resolveError.map { if case .bookmarkInvalid = $0 { true } else { false } } == true)
        let urlError = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c2", url: url(file)) }
        #expect(urlError.map { isDenied($0) } == true)
        let readError = accessError { () throws(AccessError) in try store.read(client: "c2", accessId: lease.accessId) }
        #expect(readError == .accessDenied("this access was revoked"))
        // The session that picked the file in a dialog keeps its own grant.
        _ = try store.resolve(app: "editor", client: "c1", url: url(file))
        try store.release(client: "c2", accessId: lease.accessId)
    }

    /// A read-only pick of the file after its writable bookmark was resolved, the batch that
    /// writes it already in the store: the grant's write access still rests on the bookmark and
    /// goes with it. (The pick used to untie the grant from the bookmark, so the write access the
    /// bookmark gave outlived its revocation.)
    @Test func writeAccessABookmarkGaveGoesWithItThoughTheFileWasPickedReadOnlySince() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        let lease = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        #expect(!lease.readOnly)
        try grant(store, file, client: "c2", readOnly: true)
        store.flush()

        #expect(try store.revoke(app: "editor", url: nil as String?, bookmark: bookmark) == 1)
        let writeError = accessError { () throws(AccessError) in
            try store.write(client: "c2", accessId: lease.accessId, bytes: Array("x".utf8))
        }
        #expect(writeError == .accessDenied("this access was revoked"))
        let urlError = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c2", url: url(file)) }
        #expect(urlError.map { isDenied($0) } == true)
        #expect(readFile(file) == Array("a".utf8))
    }

    @Test func anotherAppCannotRevokeABookmark() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        let error = accessError { () throws(AccessError) in try store.revoke(app: "viewer", url: nil as String?, bookmark: bookmark) }
        #expect(error.map { if case .bookmarkInvalid = $0 { true } else { false } } == true)
        #expect(try store.revoke(app: "viewer", url: url(file), bookmark: nil as String?) == 0)
        _ = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
    }

    /// App names are bytes, as the store keeps them: a name spelt another way (`café` with a
    /// combining accent for `café` precomposed, two names a client may declare) is another app,
    /// with none of the first one's bookmarks or grants, although Swift's `==` calls the two
    /// equal.
    @Test func anAppNameSpeltAnotherWayIsAnotherApp() throws {
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let store = try memoryStore()
        try grant(store, file, app: composed, client: "c1")
        let bookmark = try store.createBookmark(app: composed, client: "c1", url: url(file))

        let error = accessError { () throws(AccessError) in try store.resolve(app: decomposed, client: "c2", bookmark: bookmark) }
        #expect(error.map { if case .bookmarkInvalid = $0 { true } else { false } } == true)
        #expect(try store.revoke(app: decomposed, url: url(file), bookmark: nil as String?) == 0)
        _ = try store.resolve(app: composed, client: "c1", url: url(file))
        _ = try store.resolve(app: composed, client: "c1", bookmark: bookmark)
    }

    @Test func theListingShowsTheAppsBookmarksWithTheirLeases() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let (store, bookmark) = try bookmarked(file)
        _ = try store.resolve(app: "editor", client: "c2", bookmark: bookmark)
        _ = try store.resolve(app: "editor", client: "c3", bookmark: bookmark)

        let entries = try store.list(app: "editor", client: "c2")
        let grants = entries.filter { $0.kind == .grant }
        let bookmarks = entries.filter { $0.kind == .bookmark }
        #expect(grants.map(\.path) == [file] && grants.map(\.activeLeases) == [1])
        #expect(bookmarks.map(\.bookmark) == [bookmark] && bookmarks.map(\.activeLeases) == [2])
        #expect(try store.list(app: "viewer", client: "v1").isEmpty)
    }
}
