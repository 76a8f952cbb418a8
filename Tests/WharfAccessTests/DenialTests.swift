import Glibc
import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// Every way of reaching past what the human picked is refused, and no refusal names a path.
@Suite struct DenialTests {
    let directory = WorkDirectory()

    @Test func dotDotCannotClimbOutOfAGrantedFile() throws {
        let store = try memoryStore()
        makeDirectory(directory.file("project"))
        let granted = directory.file("project/granted.txt")
        let secret = directory.file("secret.txt")
        writeFile(granted, "g")
        writeFile(secret, "s")
        try grant(store, granted)

        for attempt in [(granted + "/../../secret.txt").description, directory.file("project/../secret.txt").description,
                        url(directory.file("project")) + "/%2E%2E/secret.txt"] {
            let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: attempt) }
            #expect(error.map { isDenied($0, revealing: [secret]) } == true, "\(attempt)")
        }
        // `..` that folds back onto the granted path itself is that path.
        let lease = try store.resolve(app: "editor", client: "c1", url: directory.file("project/../project/granted.txt"))
        #expect(lease.path == granted)
    }

    @Test func dotDotCannotClimbOutOfAGrantedDirectory() throws {
        let store = try memoryStore()
        let granted = directory.file("granted")
        makeDirectory(granted)
        let secret = directory.file("secret.txt")
        writeFile(secret, "s")
        try grant(store, granted)

        let error = accessError { () throws(AccessError) in
            try store.resolve(app: "editor", client: "c1", url: url(granted) + "/../secret.txt")
        }
        #expect(error.map { isDenied($0, revealing: [secret]) } == true)
    }

    @Test func aSymlinkSwappedInAfterTheGrantIsRefused() throws {
        let store = try memoryStore()
        let granted = directory.file("granted.txt")
        let secret = directory.file("secret.txt")
        writeFile(granted, "g")
        writeFile(secret, "s")
        try grant(store, granted)

        removeFile(granted)
        makeSymlink(secret, at: granted)
        let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(granted)) }
        #expect(error.map { isDenied($0, revealing: [secret]) } == true)
        let bookmarkError = accessError { () throws(AccessError) in
            try store.createBookmark(app: "editor", client: "c1", url: url(granted))
        }
        #expect(bookmarkError.map { isDenied($0, revealing: [secret]) } == true)
    }

    @Test func aSymlinkSwappedInDuringALeaseStopsItsIO() throws {
        let store = try memoryStore()
        let granted = directory.file("granted.txt")
        let secret = directory.file("secret.txt")
        writeFile(granted, "g")
        writeFile(secret, "secret")
        try grant(store, granted, readOnly: false)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(granted))

        removeFile(granted)
        makeSymlink(secret, at: granted)
        let readError = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        #expect(readError.map { isDenied($0, revealing: [secret]) } == true)
        let writeError = accessError { () throws(AccessError) in
            try store.write(client: "c1", accessId: lease.accessId, bytes: Array("pwned".utf8), truncate: true)
        }
        #expect(writeError.map { isDenied($0, revealing: [secret]) } == true)
        #expect(readText(secret) == "secret")
    }

    @Test func aDirectorySwappedForASymlinkInsideAGrantedFolderStopsItsIO() throws {
        let store = try memoryStore()
        let granted = directory.file("granted")
        makeDirectory(granted)
        makeDirectory(granted + "/sub")
        writeFile(granted + "/sub/file.txt", "inside")
        let elsewhere = directory.file("elsewhere")
        makeDirectory(elsewhere)
        try grant(store, granted)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(granted + "/sub/file.txt"))

        // `sub` becomes a link to a folder outside that holds a hard link to the very same file:
        // the identity still matches, so only the walk that refuses links on the way stops it —
        // the same walk that keeps a resolve racing a swap from recording something outside.
        hardLink(granted + "/sub/file.txt", at: elsewhere + "/file.txt")
        move(granted + "/sub", directory.file("sub-moved"))
        makeSymlink(elsewhere, at: granted + "/sub")
        let error = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        #expect(error.map { isDenied($0, revealing: [elsewhere]) } == true)
    }

    /// A grant is for the file the human picked. Another file put at its path — an editor's
    /// atomic save, a file renamed over it, a hard link to something else — is never served
    /// under it: I/O through a lease stops, and resolving the URL again is denied. (A bookmark
    /// follows a saved document; that is what bookmarks are for.)
    @Test(arguments: ["atomic save", "renamed over", "hard link"])
    func aFileReplacedSinceItWasGrantedIsNeverServed(_ how: String) throws {
        let store = try memoryStore()
        let granted = directory.file("granted.txt")
        writeFile(granted, "old")
        let other = directory.file("other.txt")
        writeFile(other, "someone else's")
        try grant(store, granted)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(granted))
        switch how {
        case "atomic save": atomicSave(granted, "new")
        case "renamed over": move(other, granted)
        default:
            removeFile(granted)
            hardLink(other, at: granted)
        }
        let error = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        #expect(error.map { isDenied($0) } == true)
        let again = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(granted)) }
        #expect(again.map { isDenied($0, revealing: [granted]) } == true, "\(how)")
    }

    @Test func aGrantedFileReplacedByADirectoryOrRemovedIsDenied() throws {
        let store = try memoryStore()
        let replaced = directory.file("replaced")
        let removed = directory.file("removed.txt")
        writeFile(replaced, "r")
        writeFile(removed, "r")
        try grant(store, replaced)
        try grant(store, removed)
        removeFile(replaced)
        makeDirectory(replaced)
        removeFile(removed)
        for path in [replaced, removed] {
            let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(path)) }
            #expect(error.map { isDenied($0) } == true, "\(path)")
        }
    }

    @Test func aURLThatIsNotALocalFileIsRejected() throws {
        let store = try memoryStore()
        for bad in ["https://example.com/a.txt", "file://otherhost/etc/passwd", "relative/path", "file:///a%00b"] {
            let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: bad) }
            guard case .invalidArgument? = error else {
                Issue.record("\(bad): expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func revokedGrantsRefuseIOButLeasesStillBalance() throws {
        let store = try memoryStore()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(file))

        #expect(try store.revoke(app: "editor", url: url(file), bookmark: nil as String?) == 1)
        let error = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        #expect(error == .accessDenied("this access was revoked"))
        let resolveError = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(file)) }
        #expect(resolveError.map { isDenied($0) } == true)
        try store.release(client: "c1", accessId: lease.accessId)
    }
}
