import WharfSystem

extension DialogEngine {
    /// Listings kept per dialog for paging; older ones' cursors become invalid.
    static var cachedListingsPerDialog: Int { 4 }

    /// One page of a directory as the dialog's browser shows it (see ``DirectoryEntry`` for
    /// what each flag means).
    ///
    /// A request without a cursor reads the directory afresh (one `readdir` pass, one
    /// `fstatat` per entry), sorts it and keeps the result; requests with the returned cursor
    /// page through that same snapshot without touching the disk.
    ///
    /// - Parameters:
    ///   - directory: a path or `file:` URL; nil lists the directory the dialog shows (where
    ///     it opened, or the last one listed).
    ///   - cursor: from a previous page's `nextCursor`.
    ///   - limit: entries per page; 1,000 by default, at most 10,000 (larger values are clamped).
    public func list(
        client: ClientID, id: DialogID, directory: String? = nil, cursor: String? = nil, limit: Int? = nil
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

        if let cursor {
            return try nextPage(client: client, id: id, cursor: cursor, directory: requested, pageSize: pageSize)
        }

        let (target, rules, types) = try withRecord(client: client, id: id, kind: nil) { record in
            (requested ?? record.directory, record.rules, record.types)
        }
        try Self.checkBrowsable(target, rules: rules, types: types)
        let (entries, order) = try DirectoryLister.read(target, rules: rules, types: types)

        lock.lock()
        defer { lock.unlock() }
        let record = try lookup(client: client, id: id)
        guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
        state.listingCounter += 1
        let snapshot = ListingSnapshot(generation: state.listingCounter, directory: target, entries: entries, order: order)
        record.listings.removeAll { $0.directory == target }
        record.listings.append(snapshot)
        if record.listings.count > Self.cachedListingsPerDialog { record.listings.removeFirst() }
        record.directory = target
        record.lastListedDirectory = target
        return Self.page(of: snapshot, from: 0, size: pageSize)
    }

    private func nextPage(
        client: ClientID, id: DialogID, cursor: String, directory: FilePath?, pageSize: Int
    ) throws(DialogError) -> DirectoryListing {
        let parts = cursor.split(separator: ":")
        guard parts.count == 2, let generation = UInt64(parts[0]), let offset = Int(parts[1]), offset >= 0 else {
            throw .invalidCursor(cursor)
        }
        lock.lock()
        defer { lock.unlock() }
        let record = try lookup(client: client, id: id)
        guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
        guard let snapshot = record.listings.first(where: { $0.generation == generation }),
              offset <= snapshot.count,
              directory == nil || directory == snapshot.directory
        else { throw .invalidCursor(cursor) }
        return Self.page(of: snapshot, from: offset, size: pageSize)
    }

    private static func page(of snapshot: ListingSnapshot, from offset: Int, size: Int) -> DirectoryListing {
        let end = min(snapshot.count, offset + size)
        let directory = snapshot.directory
        return DirectoryListing(
            directory: directory,
            parent: directory == .root ? nil : directory.directory,
            entries: snapshot.entries(offset..<end),
            nextCursor: end < snapshot.count ? "\(snapshot.generation):\(end)" : nil)
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
