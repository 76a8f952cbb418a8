import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfAccess

/// Each resolve is a lease released exactly once, like start/stopAccessingSecurityScopedResource.
@Suite struct LeaseBalanceTests {
    let directory = WorkDirectory()

    @Test func resolvesNestAndEachIsReleasedOnce() throws {
        let store = try memoryStore()
        let file = directory.file("notes.txt")
        writeFile(file, "hello")
        try grant(store, file)

        let outer = try store.resolve(app: "editor", client: "c1", url: url(file))
        let inner = try store.resolve(app: "editor", client: "c1", url: url(file))
        #expect(outer.accessId != inner.accessId)
        #expect(outer.path == file && outer.url == url(file) && outer.readOnly && !outer.isStale)
        #expect(store.activeLeaseCount(client: "c1") == 2)

        try store.release(client: "c1", accessId: inner.accessId)
        #expect(store.activeLeaseCount(client: "c1") == 1)
        // The outer lease still works after the inner one ended.
        #expect(try store.read(client: "c1", accessId: outer.accessId).bytes == Array("hello".utf8))
        try store.release(client: "c1", accessId: outer.accessId)
        #expect(store.activeLeaseCount(client: "c1") == 0)
    }

    @Test func aClientHoldsAtMostTheLeaseLimitAndReleasingMakesRoom() throws {
        let store = try memoryStore()
        let file = directory.file("many.txt")
        writeFile(file, "m")
        try grant(store, file)
        try grant(store, file, client: "other")
        var first: Lease?
        for _ in 0..<AccessStore.maximumLeasesPerClient {
            let lease = try store.resolve(app: "editor", client: "c1", url: url(file))
            if first == nil { first = lease }
        }
        let error = accessError { () throws(AccessError) in _ = try store.resolve(app: "editor", client: "c1", url: url(file)) }
        guard case .tooManyLeases(let limit)? = error else {
            Issue.record("expected tooManyLeases, got \(String(describing: error))")
            return
        }
        #expect(limit == AccessStore.maximumLeasesPerClient && "\(error!)".contains("\(limit)"))
        #expect(store.activeLeaseCount(client: "c1") == AccessStore.maximumLeasesPerClient)
        // Another client is not held back, and a release makes room again.
        _ = try store.resolve(app: "editor", client: "other", url: url(file))
        try store.release(client: "c1", accessId: first!.accessId)
        _ = try store.resolve(app: "editor", client: "c1", url: url(file))
        let entries = try store.list(app: "editor", client: "c1")
        #expect(entries.first?.activeLeases == AccessStore.maximumLeasesPerClient)
        #expect(store.endSession(client: "c1") == AccessStore.maximumLeasesPerClient)
        #expect(store.activeLeaseCount(client: "c1") == 0 && store.activeLeaseCount(client: "other") == 1)
    }

    @Test func releasingTwiceIsAnError() throws {
        let store = try memoryStore()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file)
        let lease = try store.resolve(app: "editor", client: "c1", url: url(file))
        try store.release(client: "c1", accessId: lease.accessId)

        let error = accessError { () throws(AccessError) in try store.release(client: "c1", accessId: lease.accessId) }
        guard case .alreadyReleased(let message)? = error else {
            Issue.record("expected alreadyReleased, got \(String(describing: error))")
            return
        }
        #expect(message.contains(lease.accessId))
        // A released lease cannot be used either.
        let readError = accessError { () throws(AccessError) in try store.read(client: "c1", accessId: lease.accessId) }
        guard case .alreadyReleased? = readError else {
            Issue.record("expected alreadyReleased, got \(String(describing: readError))")
            return
        }
    }

    @Test func releasingAnotherClientsLeaseIsAnErrorAndLeavesItActive() throws {
        let store = try memoryStore()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file, client: "owner")
        let lease = try store.resolve(app: "editor", client: "owner", url: url(file))

        let error = accessError { () throws(AccessError) in try store.release(client: "stranger", accessId: lease.accessId) }
        guard case .unknownAccessId? = error else {
            Issue.record("expected unknownAccessId, got \(String(describing: error))")
            return
        }
        #expect(store.activeLeaseCount(client: "owner") == 1)
        let readError = accessError { () throws(AccessError) in try store.read(client: "stranger", accessId: lease.accessId) }
        guard case .unknownAccessId? = readError else {
            Issue.record("a stranger must not read through another client's lease; got \(String(describing: readError))")
            return
        }
    }

    @Test func releasingAnIdThatWasNeverIssuedIsAnError() throws {
        let store = try memoryStore()
        let error = accessError { () throws(AccessError) in try store.release(client: "c1", accessId: "acc_nonsense") }
        guard case .unknownAccessId? = error else {
            Issue.record("expected unknownAccessId, got \(String(describing: error))")
            return
        }
    }

    @Test func leasesLeftOpenAreCountedInTheListingAndReleasedOnDisconnect() throws {
        let store = try memoryStore()
        let first = directory.file("one.txt")
        let second = directory.file("two.txt")
        writeFile(first, "1")
        writeFile(second, "2")
        try grant(store, first)
        try grant(store, second)
        _ = try store.resolve(app: "editor", client: "c1", url: url(first))
        _ = try store.resolve(app: "editor", client: "c1", url: url(first))
        _ = try store.resolve(app: "editor", client: "c1", url: url(second))

        let entries = try store.list(app: "editor", client: "c1")
        #expect(entries.map(\.path) == [first, second])
        #expect(entries.map(\.activeLeases) == [2, 1])
        #expect(entries.allSatisfy { $0.kind == .grant && $0.readOnly })

        #expect(store.releaseAll(client: "c1") == 3)
        #expect(try store.list(app: "editor", client: "c1").map(\.activeLeases) == [0, 0])
        #expect(store.releaseAll(client: "c1") == 0)
    }

    @Test func endingASessionReleasesItsLeasesAndDropsItsGrants() throws {
        let store = try memoryStore()
        let file = directory.file("a.txt")
        writeFile(file, "a")
        try grant(store, file)
        _ = try store.resolve(app: "editor", client: "c1", url: url(file))

        #expect(store.endSession(client: "c1") == 1)
        #expect(try store.list(app: "editor", client: "c1").isEmpty)
        let error = accessError { () throws(AccessError) in try store.resolve(app: "editor", client: "c1", url: url(file)) }
        #expect(error.map { isDenied($0) } == true)
    }
}
