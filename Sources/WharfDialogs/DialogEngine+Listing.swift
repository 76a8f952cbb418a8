import WharfSystem

/// How many listing entries the engine keeps for paging. A listing's names are read once and
/// paged from memory (an entry keeps its name's bytes, its offset, its place in the order and
/// a flag); these bounds keep a client opening many dialogs on huge folders from
/// holding gigabytes. protocol/README.md states them. Beyond them the least recently made listings are
/// dropped, oldest first, and a cursor into a dropped listing is served by reading its folder
/// again (the pages may then reflect changes made since).
public struct ListingCacheLimits: Sendable {
    /// Entries kept for one client, across its dialogs.
    public var perClient: Int
    /// Entries kept for all clients together.
    public var inAll: Int

    public init(perClient: Int = 250_000, inAll: Int = 1_000_000) {
        self.perClient = perClient
        self.inAll = inAll
    }
}

extension DialogEngine {
    /// Listings kept per dialog for paging; older ones' cursors re-read their folder.
    static var cachedListingsPerDialog: Int { 4 }

    /// One page of a directory as the dialog's browser shows it (see ``DirectoryEntry`` for
    /// what each flag means).
    ///
    /// A request without a cursor reads the directory's names afresh (one `readdir` pass; a
    /// `stat` only for links and entries of unknown type), sorts them and keeps the result;
    /// requests with the returned cursor page through those same names (unless the cache had
    /// to drop them, see ``ListingCacheLimits``). Each page's entries are read as it is served
    /// (status, type, `enabled`), so the first page of a huge folder comes as soon as its names
    /// are sorted. Reads the disk: call it off the read loop.
    ///
    /// - Parameters:
    ///   - directory: a path or `file:` URL; nil lists the directory the dialog shows (where
    ///     it opened, or the last one listed).
    ///   - cursor: from a previous page's `nextCursor`.
    ///   - limit: entries per page; 1,000 by default, at most 10,000 (larger values are clamped).
    ///   - showHidden: whether entries whose names start with `.` are listed (the person showed
    ///     or hid them); nil: as the dialog's `includeHiddenFiles` says. Without a cursor only:
    ///     a cursor's pages are those of the listing it came from.
    public func list(
        client: ClientID, id: DialogID, directory: String? = nil, cursor: String? = nil, limit: Int? = nil,
        showHidden: Bool? = nil
    ) throws(DialogError) -> DirectoryListing {
        let pageSize = try Self.pageSize(limit)
        let requested: FilePath?
        if let directory {
            guard let path = FileURL.pathOrURL(directory) else {
                throw .invalidArgument(field: "directory", reason: "is neither an absolute path nor a file: URL (\(directory))")
            }
            requested = path.normalized
        } else {
            requested = nil
        }

        var offset = 0
        var relist: ListingSource?
        if let cursor {
            let (generation, start) = try Self.parse(cursor: cursor)
            switch try cachedPage(client: client, id: id, generation: generation, offset: start, directory: requested) {
            case .page(let snapshot, let rules, let types):
                return try Self.page(of: snapshot, from: start, size: pageSize, rules: rules, types: types)
            case .evicted(let source):
                offset = start
                relist = source
            }
        }

        let (source, rules, types, mover) = try withRecord(client: client, id: id, kind: nil) { record in
            let shown = showHidden ?? record.rules.browserOptions.contains(.includeHiddenFiles)
            return (relist ?? ListingSource(directory: requested ?? record.directory, showsHidden: shown), record.rules, record.types,
                    record.mover)
        }
        let target = source.directory
        try Self.checkBrowsable(target, rules: rules, types: types)
        let (names, order) = try DirectoryLister.read(source, rules: rules, types: types)
        var folderChoice = DirectoryLister.folderChoice(target, rules: rules, types: types)
        // A mover's folder is refused, too, inside a folder it moves: said as `move` says it.
        if let mover, case .enabled? = folderChoice, let inside = MoveJob.movedFolder(containing: target, plan: mover) {
            folderChoice = .disabled(reason: MoveJob.insideReason(inside))
        }

        let snapshot = try lock.withLock { () throws(DialogError) -> ListingSnapshot in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            state.listingCounter += 1
            let snapshot = ListingSnapshot(generation: state.listingCounter, source: source, folderChoice: folderChoice,
                                           names: names, order: order)
            if let stale = record.listings.firstIndex(where: { $0.directory == target }) {
                forget(record.listings.remove(at: stale), of: record)
            }
            record.listings.append(snapshot)
            state.cachedEntries[client, default: 0] += snapshot.count
            state.cachedEntriesInAll += snapshot.count
            if record.listings.count > Self.cachedListingsPerDialog { forget(record.listings.removeFirst(), of: record) }
            evictListings(keeping: snapshot.generation, of: client)
            record.directory = target
            record.lastListedDirectory = target
            return snapshot
        }
        return try Self.page(of: snapshot, from: min(offset, snapshot.count), size: pageSize, rules: rules, types: types)
    }

    private enum CachedPage {
        /// The listing is cached: its page is made from it, outside the lock.
        case page(ListingSnapshot, SelectionRules, any ContentTypeOracle)
        /// The listing was dropped from the cache; its folder is read again.
        case evicted(ListingSource)
    }

    private static func parse(cursor: String) throws(DialogError) -> (generation: UInt64, offset: Int) {
        let parts = cursor.split(separator: ":")
        guard parts.count == 2, let generation = UInt64(parts[0]), let offset = Int(parts[1]), offset >= 0 else {
            throw .invalidCursor(cursor)
        }
        return (generation, offset)
    }

    private func cachedPage(
        client: ClientID, id: DialogID, generation: UInt64, offset: Int, directory: FilePath?
    ) throws(DialogError) -> CachedPage {
        try lock.withLock { () throws(DialogError) -> CachedPage in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            let cursor = "\(generation):\(offset)"
            if let snapshot = record.listings.first(where: { $0.generation == generation }) {
                guard offset <= snapshot.count, directory == nil || directory == snapshot.directory else {
                    throw .invalidCursor(cursor)
                }
                return .page(snapshot, record.rules, record.types)
            }
            guard let source = record.evictedListings[generation], directory == nil || directory == source.directory else {
                throw .invalidCursor(cursor)
            }
            return .evicted(source)
        }
    }

    /// Lock held. Drops the least recently made listings until the client's and everyone's
    /// cached entries are within the limits (the newest listing, `keeping`, always stays).
    private func evictListings(keeping newest: UInt64, of client: ClientID) {
        func oldest(where belongs: (DialogRecord) -> Bool) -> (DialogRecord, Int)? {
            var found: (DialogRecord, Int, UInt64)?
            for record in state.dialogs.values where belongs(record) {
                for (index, listing) in record.listings.enumerated() where listing.generation != newest {
                    if found == nil || listing.generation < found!.2 { found = (record, index, listing.generation) }
                }
            }
            return found.map { ($0.0, $0.1) }
        }
        while state.cachedEntries[client, default: 0] > listingCache.perClient,
              let (record, index) = oldest(where: { $0.client == client }) {
            forget(record.listings.remove(at: index), of: record, evicted: true)
        }
        while state.cachedEntriesInAll > listingCache.inAll, let (record, index) = oldest(where: { _ in true }) {
            forget(record.listings.remove(at: index), of: record, evicted: true)
        }
    }

    /// Lock held. Accounts for a listing leaving the cache; an evicted one stays reachable by
    /// its cursor (its folder is read again).
    private func forget(_ snapshot: ListingSnapshot, of record: DialogRecord, evicted: Bool = false) {
        state.cachedEntries[record.client, default: 0] -= snapshot.count
        state.cachedEntriesInAll -= snapshot.count
        if state.cachedEntries[record.client] == 0 { state.cachedEntries[record.client] = nil }
        guard evicted else { return }
        if record.evictedListings.count >= 64, let first = record.evictedListings.keys.min() {
            record.evictedListings[first] = nil
        }
        record.evictedListings[snapshot.generation] = snapshot.source
    }

    /// Lock held. The dialog no longer lists (it ended, or its choice was made): its listings go.
    func dropListings(of record: DialogRecord) {
        for listing in record.listings { forget(listing, of: record) }
        record.listings = []
        record.evictedListings = [:]
    }

    /// How many listing entries are cached for paging: for `client`, and in all.
    public func cachedListingEntries(client: ClientID) -> (client: Int, inAll: Int) {
        lock.withLock { (state.cachedEntries[client] ?? 0, state.cachedEntriesInAll) }
    }

    /// One page of `snapshot`: its entries read and judged now, their disabled entries'
    /// reasons put in words (without the lock: a page may hold 10,000 entries, and reads the
    /// disk). An entry removed since the folder was read is left out of its page.
    private static func page(
        of snapshot: ListingSnapshot, from offset: Int, size: Int, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> DirectoryListing {
        let end = min(snapshot.count, offset + size)
        let directory = snapshot.directory
        return DirectoryListing(
            directory: directory,
            parent: directory == .root ? nil : directory.directory,
            entries: try DirectoryLister.describe(snapshot.order[offset..<end], of: snapshot.names, in: directory, rules: rules, types: types),
            nextCursor: end < snapshot.count ? "\(snapshot.generation):\(end)" : nil,
            folderChoice: snapshot.folderChoice)
    }

    private static func pageSize(_ limit: Int?) throws(DialogError) -> Int {
        guard let limit else { return DirectoryLister.defaultLimit }
        guard limit >= 1 else { throw .invalidArgument(field: "limit", reason: "must be at least 1 (got \(limit))") }
        return min(limit, DirectoryLister.maximumLimit)
    }

    /// A package is a single file to the browser unless packages are enumerated.
    private static func checkBrowsable(
        _ directory: FilePath, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) {
        if rules.browserOptions.contains(.enumeratePackages) || directory == .root { return }
        guard let status = try? FileStatus.of(directory) else { return }  // listing it will say why
        let type = types.identify(name: directory.lastComponent, status: status) { _ throws(SystemError) in 0 }
        if types.isPackage(type) {
            throw .cannotList(
                directory: directory,
                reason: "it is a package (\(type)), which this dialog shows as a single file (enumeratePackages is off)")
        }
    }
}
