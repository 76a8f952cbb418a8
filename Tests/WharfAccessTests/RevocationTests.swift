import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// A revocation made by another process reaches this one later: by then the human may have
/// picked the same file again. A pick after the revocation is a new consent and stays; a pick
/// before it goes with the revocation.
@Suite struct RevocationTests {
    let state = WorkDirectory()
    let directory = WorkDirectory()

    /// `notes.txt`, and two processes' stores: the editor's, and the one `wharf access` uses.
    private func editorAndAdmin() throws -> (notes: FilePath, editor: AccessStore, admin: AccessStore) {
        let notes = directory.file("notes.txt")
        writeFile(notes, "notes")
        return (notes, try AccessStore.open(stateDirectory: state.path).0, try AccessStore.open(stateDirectory: state.path).0)
    }

    /// The editor's grant for `notes.txt`, written, and its id as `wharf access list` shows it.
    private func revocableGrant(_ editor: AccessStore, _ admin: AccessStore, _ file: FilePath) throws -> String {
        try grant(editor, file)
        editor.flush()
        let entry = try #require(try admin.allEntries().first { $0.path == file })
        return entry.id
    }

    @Test func aFilePickedAgainAfterARevocationIsGrantedAgain() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        let other = directory.file("other.txt")
        writeFile(other, "other")
        let (viewer, _) = try AccessStore.open(stateDirectory: state.path)
        let id = try revocableGrant(editor, admin, notes)
        let before = try editor.resolve(app: "editor", client: "c1", url: url(notes))
        try admin.revoke(id: id)
        // Another process's grant, written next: it does not take the freed row id (SQLite
        // would give the highest again), so the editor's refresh below cannot write into it.
        try grant(viewer, other, app: "viewer", client: "v1")
        viewer.flush()
        #expect(try admin.allEntries().first { $0.path == other }?.id != id)

        // The human picks the same file again before the editor has looked at the store.
        try grant(editor, notes)
        editor.flush()

        let lease = try editor.resolve(app: "editor", client: "c1", url: url(notes))
        #expect(try editor.read(client: "c1", accessId: lease.accessId).bytes == Array("notes".utf8))
        // What was started before the revocation stays revoked.
        let error = accessError { () throws(AccessError) in try editor.read(client: "c1", accessId: before.accessId) }
        #expect(error == .accessDenied("this access was revoked"))
        let entries = try admin.allEntries()
        #expect(entries.map(\.path) == [notes, other], "\(entries)")
        let viewersInode = try admin.read { db in try db.first("SELECT inode FROM grants WHERE path = ?", [.path(other)]) { $0.int(0) } }
        #expect(viewersInode == Int64(try FileStatus.of(other).inode), "the editor's refresh wrote into the viewer's row")
        #expect(try admin.read { db in try db.first("SELECT count(*) FROM revoked_grants") { $0.int(0) } } == 0,
                "a judged revocation leaves its record behind")
    }

    @Test func aFilePickedAgainAfterARevocationIsKeptByTheAccessCheckBeforeItIsWritten() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        let id = try revocableGrant(editor, admin, notes)
        let before = try editor.resolve(app: "editor", client: "c1", url: url(notes))
        try admin.revoke(id: id)

        // The refreshed grant cannot be written while another process holds the store, so the
        // access check is the first to find its row gone.
        let lock = try DatabaseLock(editor.databasePath, seconds: 1)
        try grant(editor, notes)
        let lease = try editor.resolve(app: "editor", client: "c1", url: url(notes))
        #expect(try editor.read(client: "c1", accessId: lease.accessId).bytes == Array("notes".utf8))
        let error = accessError { () throws(AccessError) in try editor.read(client: "c1", accessId: before.accessId) }
        #expect(error == .accessDenied("this access was revoked"))
        withExtendedLifetime(lock) {}

        editor.flush()
        #expect(try admin.allEntries().filter { $0.kind == .grant }.map(\.path) == [notes])
        #expect(try editor.read(client: "c1", accessId: lease.accessId).bytes == Array("notes".utf8))
    }

    /// What is kept is the new pick, nothing more: an importer's read-only pick after a
    /// read-write grant (an exporter's) was revoked gives read-only access, not the rights
    /// merged from before the revocation.
    @Test func aFilePickedAgainKeepsOnlyWhatTheNewPickGave() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        try grant(editor, notes, readOnly: false)
        editor.flush()
        let id = try #require(try admin.allEntries().first { $0.path == notes }?.id)
        try admin.revoke(id: id)
        try grant(editor, notes, readOnly: true)
        editor.flush()
        let lease = try editor.resolve(app: "editor", client: "c1", url: url(notes))
        #expect(lease.readOnly)
        #expect(try admin.allEntries().first { $0.path == notes }?.readOnly == true)
    }

    /// A row id is never given twice: the editor's next grant does not take the row id of its
    /// own grant that another process revoked, which would hide that revocation from it.
    @Test func aRevokedGrantsRowIdIsNotReusedByTheSameProcess() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        let other = directory.file("other.txt")
        writeFile(other, "other")
        let id = try revocableGrant(editor, admin, notes)
        try admin.revoke(id: id)
        try grant(editor, other)
        editor.flush()
        #expect(try admin.allEntries().first { $0.path == other }?.id != id)
        let error = accessError { () throws(AccessError) in try editor.resolve(app: "editor", client: "c1", url: url(notes)) }
        #expect(error.map { isDenied($0) } == true, "the revoked grant is still served: \(String(describing: error))")
        #expect(try editor.resolve(app: "editor", client: "c1", url: url(other)).accessId.isEmpty == false)
    }

    @Test func aRevocationAfterThePickStillWins() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        let id = try revocableGrant(editor, admin, notes)

        // Picked again, then revoked: whether the refresh is written before the revocation or
        // after it, the revocation is the later act.
        try grant(editor, notes)
        try admin.revoke(id: id)
        editor.flush()

        let error = accessError { () throws(AccessError) in try editor.resolve(app: "editor", client: "c1", url: url(notes)) }
        #expect(error.map { isDenied($0) } == true, "\(String(describing: error))")
        editor.flush()
        #expect(try admin.allEntries().filter { $0.kind == .grant } == [])
    }

    @Test func aBookmarkRevokedInAnotherProcessDatesTheGrantsResolvedFromIt() throws {
        let (notes, editor, admin) = try editorAndAdmin()
        try grant(editor, notes)
        let bookmark = try editor.createBookmark(app: "editor", client: "c1", url: url(notes))
        editor.endSession(client: "c1")
        // A new session reaches the file through the bookmark only.
        _ = try editor.resolve(app: "editor", client: "c2", bookmark: bookmark)
        editor.flush()
        let entry = try #require(try admin.allEntries().first { $0.kind == .bookmark })
        try admin.revoke(id: entry.id)

        // Picked in a dialog after the bookmark went: the session keeps the file.
        try grant(editor, notes, client: "c2")
        editor.flush()
        let lease = try editor.resolve(app: "editor", client: "c2", url: url(notes))
        #expect(try editor.read(client: "c2", accessId: lease.accessId).bytes == Array("notes".utf8))
    }
}
