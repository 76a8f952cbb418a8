import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// Listings kept for paging stay within ``ListingCacheLimits`` (issue 12, class 3): per client
/// and in all, however many dialogs list however large folders; a cursor into a listing that
/// was dropped still pages, by reading its folder again. Small limits here stand for the
/// server's 250,000 entries per client and 1,000,000 in all.
@Suite struct ListingCacheTests {
    /// `count` folders of `entries` files each, inside the harness's directory.
    func folders(_ h: Harness, count: Int, entries: Int) -> [FilePath] {
        (0..<count).map { folder in
            for index in 0..<entries { h.dir.makeFile("folder\(folder)/file\(index).txt") }
            return h.dir.at("folder\(folder)")
        }
    }

    @Test func aClientListingManyFoldersInManyDialogsKeepsAtMostItsShare() throws {
        let h = Harness(listingCache: ListingCacheLimits(perClient: 100, inAll: 1_000))
        let folders = folders(h, count: 6, entries: 30)
        var cursors: [(DialogID, String, FilePath)] = []
        for folder in folders {
            let id = try h.importer()
            let page = try h.engine.list(client: h.client, id: id, directory: folder.description, limit: 10)
            cursors.append((id, try #require(page.nextCursor), folder))
            #expect(h.engine.cachedListingEntries(client: h.client).client <= 100)
        }
        #expect(h.engine.cachedListingEntries(client: h.client).client > 0)

        // The first listings were dropped; their cursors still page, from a fresh read.
        for (id, cursor, folder) in cursors {
            let page = try h.engine.list(client: h.client, id: id, cursor: cursor, limit: 10)
            #expect(page.directory == folder)
            #expect(page.entries.map(\.displayName) == (10..<20).map { "file\($0).txt" }, "the second page of \(folder)")
            #expect(h.engine.cachedListingEntries(client: h.client).client <= 100)
        }
    }

    @Test func allClientsTogetherKeepAtMostTheTotal() throws {
        let h = Harness(listingCache: ListingCacheLimits(perClient: 100, inAll: 150))
        let folders = folders(h, count: 4, entries: 60)
        for (index, folder) in folders.enumerated() {
            let client = ClientID(UInt64(index + 10))
            let id = try h.importer(client: client)
            _ = try h.engine.list(client: client, id: id, directory: folder.description, limit: 5)
            #expect(h.engine.cachedListingEntries(client: client).inAll <= 150)
        }
    }

    @Test func aListingLargerThanTheLimitIsStillServedWhole() throws {
        let h = Harness(listingCache: ListingCacheLimits(perClient: 10, inAll: 10))
        let folder = folders(h, count: 1, entries: 25)[0]
        let id = try h.importer()
        var names: [String] = []
        var cursor: String?
        repeat {
            let page = try h.engine.list(client: h.client, id: id, directory: cursor == nil ? folder.description : nil, cursor: cursor, limit: 7)
            names += page.entries.map(\.displayName)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(names.count == 25 && Set(names).count == 25)
    }

    @Test func endingADialogGivesItsListingsBack() throws {
        let h = Harness(listingCache: ListingCacheLimits(perClient: 1_000, inAll: 1_000))
        let folder = folders(h, count: 1, entries: 40)[0]
        let id = try h.importer()
        _ = try h.engine.list(client: h.client, id: id, directory: folder.description, limit: 5)
        #expect(h.engine.cachedListingEntries(client: h.client) == (40, 40))
        #expect(try h.engine.cancel(client: h.client, id: id))
        #expect(h.engine.cachedListingEntries(client: h.client) == (0, 0))
    }
}
