import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// readFile/writeFile: only through a live lease, only within what it grants, bounded per call.
@Suite struct FileIOTests {
    let directory = WorkDirectory()

    func lease(_ text: String, readOnly: Bool, store: AccessStore) throws -> Lease {
        let file = directory.file("file-\(readOnly).txt")
        writeFile(file, text)
        try grant(store, file, readOnly: readOnly)
        return try store.resolve(app: "editor", client: "c1", url: url(file))
    }

    @Test func readsRangesAndReportsTheEnd() throws {
        let store = try memoryStore()
        let lease = try lease("0123456789", readOnly: true, store: store)

        let head = try store.read(client: "c1", accessId: lease.accessId, offset: 0, length: 4)
        #expect(head.bytes == Array("0123".utf8) && !head.eof)
        let tail = try store.read(client: "c1", accessId: lease.accessId, offset: 6, length: 4)
        #expect(tail.bytes == Array("6789".utf8) && tail.eof)
        let beyond = try store.read(client: "c1", accessId: lease.accessId, offset: 20, length: 4)
        #expect(beyond.bytes.isEmpty && beyond.eof)
        let whole = try store.read(client: "c1", accessId: lease.accessId)
        #expect(whole.bytes.count == 10 && whole.eof)
    }

    @Test func aReadOrWriteLargerThanTheCapIsRefused() throws {
        let store = try memoryStore()
        let lease = try lease("x", readOnly: false, store: store)
        let cap = AccessStore.maximumTransferLength
        #expect(cap == 16 * 1024 * 1024)

        let readError = accessError { () throws(AccessError) in
            try store.read(client: "c1", accessId: lease.accessId, offset: 0, length: cap + 1)
        }
        guard case .tooLarge? = readError else {
            Issue.record("expected tooLarge, got \(String(describing: readError))")
            return
        }
        let writeError = accessError { () throws(AccessError) in
            try store.write(client: "c1", accessId: lease.accessId, bytes: [UInt8](repeating: 0, count: cap + 1))
        }
        guard case .tooLarge? = writeError else {
            Issue.record("expected tooLarge, got \(String(describing: writeError))")
            return
        }
        // Exactly the cap is fine.
        #expect(try store.write(client: "c1", accessId: lease.accessId, bytes: [UInt8](repeating: 7, count: cap)) == cap)
        #expect(try store.read(client: "c1", accessId: lease.accessId, offset: 0, length: cap).bytes.count == cap)
    }

    @Test func negativeOffsetsAndLengthsAreRejected() throws {
        let store = try memoryStore()
        let lease = try lease("x", readOnly: false, store: store)
        for error in [
            accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId, offset: -1, length: 1) },
            accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId, offset: 0, length: -1) },
            accessError { () throws(AccessError) in try store.write(client: "c1", accessId: lease.accessId, bytes: [1], offset: -5) },
        ] {
            guard case .invalidArgument? = error else {
                Issue.record("expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func anImportersLeaseCannotWrite() throws {
        let store = try memoryStore()
        let lease = try lease("original", readOnly: true, store: store)
        let error = accessError { () throws(AccessError) in
            try store.write(client: "c1", accessId: lease.accessId, bytes: Array("changed".utf8), truncate: true)
        }
        guard case .readOnly? = error else {
            Issue.record("expected readOnly, got \(String(describing: error))")
            return
        }
        #expect(readText(lease.path) == "original")
    }

    @Test func writesAtAnOffsetAndTruncatesAfterWhatItWrote() throws {
        let store = try memoryStore()
        let lease = try lease("hello world", readOnly: false, store: store)

        #expect(try store.write(client: "c1", accessId: lease.accessId, bytes: Array("WORLD".utf8), offset: 6) == 5)
        #expect(readText(lease.path) == "hello WORLD")
        try store.write(client: "c1", accessId: lease.accessId, bytes: Array("bye".utf8), offset: 0, truncate: true)
        #expect(readText(lease.path) == "bye")
        // Writing past the end extends the file.
        try store.write(client: "c1", accessId: lease.accessId, bytes: Array("!".utf8), offset: 5)
        #expect(readFile(lease.path) == Array("bye".utf8) + [0, 0] + Array("!".utf8))
    }

    @Test func aFolderLeaseDoesNoByteIO() throws {
        let store = try memoryStore()
        let folder = directory.file("folder")
        makeDirectory(folder)
        try grant(store, folder)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(folder))
        let error = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        guard case .invalidArgument? = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
    }

    @Test func aReadWriteFolderGrantAllowsWritingFilesInside() throws {
        let store = try memoryStore()
        let folder = directory.file("out")
        makeDirectory(folder)
        writeFile(folder + "/a.txt", "a")
        try grant(store, folder, readOnly: false)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(folder + "/a.txt"))
        try store.write(client: "c1", accessId: lease.accessId, bytes: Array("b".utf8), truncate: true)
        #expect(readText(folder + "/a.txt") == "b")
    }
}
