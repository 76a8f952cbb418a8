import Glibc
import Testing
@testable import WharfAccess
import WharfSystem
import WharfTestSupport

/// A recycled inode number must not pass for a deleted file.
@Suite struct FingerprintTests {
    let directory = WorkDirectory()

    @Test func theFileSystemUnderTestRecordsBirthTimes() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let born = try #require(FileBirth.of(file, followSymlinks: false))
        #expect(born.inode == identity(file).inode)
        #expect(born.birth != nil)
        let handle = try AccessFileHandle(path: file, mode: .path)
        #expect(handle.birth() == born.birth)
    }

    @Test func aFileWithTheSameInodeButAnotherBirthIsNotTheSameFile() throws {
        let file = directory.file("a.txt")
        writeFile(file, "a")
        let real = try #require(Fingerprint.of(path: file))
        let recycled = Fingerprint(identity: real.identity, birth: try #require(real.birth) - 1)
        #expect(real.matches(real))
        #expect(!real.matches(recycled))
        // Unknown birth times (older rows) fall back to the identity alone.
        #expect(real.matches(Fingerprint(identity: real.identity, birth: nil)))
    }

    @Test func aBookmarkSearchDoesNotFollowARecycledInode() throws {
        makeDirectory(directory.file("docs"))
        makeDirectory(directory.file("other"))
        let newcomer = directory.file("other/newcomer.txt")
        writeFile(newcomer, "not the bookmarked file")
        let real = try #require(Fingerprint.of(path: newcomer))
        // What a deleted file that had the newcomer's inode number would have been recorded as.
        let deleted = Fingerprint(identity: real.identity, birth: try #require(real.birth) - 1_000_000_000)

        let location = FileLocator.locate(path: directory.file("docs/deleted.txt"), fingerprint: deleted, isDirectory: false)
        #expect(location == .gone)
        let genuine = FileLocator.locate(path: directory.file("docs/deleted.txt"), fingerprint: real, isDirectory: false)
        #expect(genuine == .moved(path: newcomer, fingerprint: real))
    }

    @Test func aLeaseRefusesAFileThatReusedTheInodeNumber() throws {
        let store = try memoryStore()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(file))
        // Make the recorded birth time differ, as if the file had been deleted and its number reused.
        store.sessions.withValue { state in
            state.update(lease: lease.accessId) { $0.fingerprint.birth = ($0.fingerprint.birth ?? 0) - 1 }
        }
        let error = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        #expect(error.map { isDenied($0) } == true)
    }
}
