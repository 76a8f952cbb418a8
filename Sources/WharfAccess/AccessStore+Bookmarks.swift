import WharfSystem

/// Bookmarks: an app identity's lasting claim on a file, kept server-side and named by a random
/// token (the twin of security-scoped bookmark data).
extension AccessStore {
    private static let unknownBookmark = "no such bookmark for this app (never issued, revoked, or another app's)"

    /// Makes a bookmark for `url`, which `client` must hold a grant for (directly or inside a
    /// granted directory). The bookmark belongs to `app` and carries the grant's rights.
    ///
    /// An app has one bookmark per path: bookmarking the same file again answers the same token
    /// (refreshed to the file as it is now), so an app that bookmarks at every launch does not
    /// grow the store.
    public func createBookmark(app: String, client: ClientID, url: String) throws(AccessError) -> String {
        let authorization = try authorize(client: client, url: url)
        let fresh: String
        do { fresh = try RandomTokens.bookmark() } catch { throw .io(error) }
        guard sessions.withValue({ $0.grants[authorization.grantId] != nil }) else {
            throw .accessDenied("the grant was revoked")
        }
        // Durable before it is answered, power cut included: a bookmark handed out is never lost.
        return try write(durable: true) { db in
            if let existing = try db.first("SELECT id, token FROM bookmarks WHERE app = ? AND path = ? ORDER BY id LIMIT 1",
                                           [.text(app), .path(authorization.path)], map: { ($0.int(0), $0.text(1)) }) {
                try db.run("""
                    UPDATE bookmarks SET device = ?, inode = ?, file_system = ?, birth = ?, is_directory = ?,
                                         read_only = read_only AND ?
                    WHERE id = ?
                    """, SQLiteValue.fingerprint(authorization.fingerprint)
                    + [.bool(authorization.isDirectory), .bool(authorization.readOnly), .integer(existing.0)])
                return existing.1
            }
            try db.run("""
                INSERT INTO bookmarks (token, app, path, device, inode, file_system, birth, is_directory, read_only, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(fresh), .text(app), .path(authorization.path)] + SQLiteValue.fingerprint(authorization.fingerprint)
                + [.bool(authorization.isDirectory), .bool(authorization.readOnly), .real(StateLocation.now())])
            return fresh
        }
    }

    /// Starts access through a bookmark of `app`; `client` gains a grant for the file (tied to
    /// the bookmark: revoking the bookmark revokes it) and a lease on it.
    ///
    /// The file at the bookmarked path → fresh. Replaced at the same path (an editor's atomic
    /// save) → that path, `isStale`. Renamed, or moved to a sibling directory → found by identity,
    /// `isStale`. In both stale cases the bookmark is refreshed in place to the file as it is now,
    /// so the same string keeps working and is the one to store. Gone → `bookmarkInvalid` with
    /// the last known path.
    ///
    /// `isLive` says whether the client's session is still running. Resolving a bookmark creates
    /// a grant, which only ``endSession(client:)`` removes: a resolve still on its way when the
    /// session ended would leave one (and its lease) behind for good. It is asked under the
    /// sessions' lock as the grant is made; the session must say it has ended before it calls
    /// `endSession`. (A `url` needs a grant the session already had, which `endSession` removed:
    /// ``startLease`` refuses it then.)
    public func resolve(app: String, client: ClientID, bookmark: String,
                        isLive: () -> Bool = { true }) throws(AccessError) -> Lease {
        let row = try bookmarkRow(app: app, token: bookmark)
        let location = FileLocator.locate(path: row.path, fingerprint: row.fingerprint, isDirectory: row.isDirectory)
        let fingerprint: Fingerprint
        switch location {
        case .same: fingerprint = row.fingerprint
        case .replaced(_, let found), .moved(_, let found): fingerprint = found
        case .gone:
            throw .bookmarkInvalid("the bookmarked file is gone: it is neither at its last known path nor "
                + "in that folder or the folders beside it", lastKnownPath: row.path)
        }
        let path = location.path ?? row.path
        try write { db in
            guard try db.first("SELECT 1 FROM bookmarks WHERE id = ?", [.integer(row.id)], map: { _ in true }) != nil else {
                throw AccessError.bookmarkInvalid(Self.unknownBookmark, lastKnownPath: nil)
            }
            if location.isStale {
                try db.run("UPDATE bookmarks SET path = ?, device = ?, inode = ?, file_system = ?, birth = ?, resolved = ? WHERE id = ?",
                           [.path(path)] + SQLiteValue.fingerprint(fingerprint) + [.real(StateLocation.now()), .integer(row.id)])
            } else {
                try db.run("UPDATE bookmarks SET resolved = ? WHERE id = ?", [.real(StateLocation.now()), .integer(row.id)])
            }
        }
        let grantId = try sessions.withValue { state throws(AccessError) in
            guard isLive() else { throw .accessDenied("the session has ended") }
            return state.upsert(Grant(client: client, app: app, path: path, fingerprint: fingerprint,
                                      isDirectory: row.isDirectory, isSymlink: false, readOnly: row.readOnly,
                                      bookmarkId: row.id, created: StateLocation.now()))
        }
        pending.change { $0.grants.insert(grantId) }
        let authorization = Authorization(
            grantId: grantId, path: path, anchor: nil, fingerprint: fingerprint, grantFingerprint: fingerprint,
            isDirectory: row.isDirectory, isSymlink: false, readOnly: row.readOnly, isStale: location.isStale)
        return try startLease(client: client, authorization, bookmark: bookmark)
    }

    /// The bookmark row for `token` if it is `app`'s. A malformed or edited token is refused
    /// before the store is asked; an unknown one and another app's get the same answer, so a
    /// client learns nothing about bookmarks that are not its app's.
    func bookmarkRow(app: String, token: String) throws(AccessError) -> BookmarkRow {
        guard RandomTokens.isWellFormedBookmark(token) else {
            throw .bookmarkInvalid("not a bookmark Wharf issued (malformed, or edited)", lastKnownPath: nil)
        }
        let row = try read { db in
            try db.first("SELECT \(BookmarkRow.columns) FROM bookmarks WHERE token = ?", [.text(token)], map: BookmarkRow.init)
        }
        // App names compare as the store compares them, byte for byte (Swift's `==` would take a
        // name spelt with a combining accent for the precomposed one).
        guard let row, row.app.utf8.elementsEqual(app.utf8) else { throw .bookmarkInvalid(Self.unknownBookmark, lastKnownPath: nil) }
        return row
    }

    // MARK: Listing and revoking for an app

    /// What `client` holds and what its app keeps: the session's grants, then the app's
    /// bookmarks, each with its active lease count.
    public func list(app: String, client: ClientID) throws(AccessError) -> [AccessEntry] {
        // Written first, so the ids are the store's (what `wharf access list` shows).
        flush()
        try dropRevokedGrants()
        let grants = sessions.withValue { state -> [AccessEntry] in
            let ids = state.clients[client].map { Array($0.byPath.values) } ?? []
            return ids.sorted().compactMap { id -> AccessEntry? in
                guard let grant = state.grants[id] else { return nil }
                return AccessEntry(id: grant.rowId.map { "g\($0)" } ?? "g-\(id)", kind: .grant, app: grant.app, path: grant.path,
                                   readOnly: grant.readOnly, isDirectory: grant.isDirectory,
                                   activeLeases: state.leaseCount(of: id), created: grant.created, bookmark: nil, holder: nil)
            }
        }
        // Leases through a bookmark's grants, in this process (other processes' count in the store).
        let leasesByBookmark = sessions.withValue { state -> [Int64: Int] in
            var counts: [Int64: Int] = [:]
            for grant in state.grants.values {
                if let bookmark = grant.bookmarkId { counts[bookmark, default: 0] += state.leaseCount(of: grant.id) }
            }
            return counts
        }
        let bookmarks = try read { db in
            var entries: [AccessEntry] = []
            try db.query("""
                SELECT b.id, b.app, b.path, b.read_only, b.is_directory, b.created,
                       (SELECT count(*) FROM leases l JOIN grants g ON l.grant_id = g.id
                        WHERE g.bookmark_id = b.id AND g.instance != ?),
                       b.token
                FROM bookmarks b WHERE b.app = ? ORDER BY b.id
                """, [.text(instance), .text(app)]) { row in
                var entry = Self.entry(kind: .bookmark, row, bookmark: row.text(7), holder: nil)
                entry.activeLeases += leasesByBookmark[row.int(0)] ?? 0
                entries.append(entry)
            }
            return entries
        }
        return grants + bookmarks
    }

    /// Builds an entry from columns `id, app, path, read_only, is_directory, created, leases`.
    static func entry(kind: AccessEntry.Kind, _ row: SQLiteRow, bookmark: String?, holder: String?) -> AccessEntry {
        return AccessEntry(id: (kind == .grant ? "g" : "b") + String(row.int(0)), kind: kind, app: row.text(1),
                           path: row.path(2), readOnly: row.bool(3),
                           isDirectory: row.bool(4), activeLeases: Int(row.int(6)), created: row.real(5),
                           bookmark: bookmark, holder: holder)
    }

    /// Removes, for `app`, every grant (of any of its sessions, in any process) and bookmark of
    /// `url`, or the one `bookmark`. Leases through what was removed stay to be released, but
    /// refuse I/O from now on. Answers how many grants and bookmarks were removed.
    public func revoke(app: String, url: String?, bookmark: String?) throws(AccessError) -> Int {
        switch (url, bookmark) {
        case (let url?, nil):
            guard let raw = FileURL.pathOrURL(url) else {
                throw .invalidArgument("expected a file: URL or an absolute path")
            }
            let path = raw.normalized
            let mine = sessions.withValue { state -> [Grant] in
                let matching = state.grants.values.filter { $0.app.utf8.elementsEqual(app.utf8) && $0.path == path }
                for grant in matching { state.remove(grant: grant.id) }
                return matching
            }
            let elsewhere = try write { db in
                try Self.recordRevocation(
                    db, ofGrantsWhere: "instance != ? AND (app = ? AND path = ? OR bookmark_id IN (SELECT id FROM bookmarks WHERE app = ? AND path = ?))",
                    [.text(instance), .text(app), .path(path), .text(app), .path(path)])
                return try db.run("DELETE FROM grants WHERE app = ? AND path = ? AND instance != ?", [.text(app), .path(path), .text(instance)])
                    + db.run("DELETE FROM bookmarks WHERE app = ? AND path = ?", [.text(app), .path(path)])
            }
            forgetRows(of: mine)
            return mine.count + elsewhere
        case (nil, let token?):
            let row = try bookmarkRow(app: app, token: token)
            let removed = try write { db in
                try Self.recordRevocation(db, ofGrantsWhere: "bookmark_id = ? AND instance != ?", [.integer(row.id), .text(instance)])
                return try db.run("DELETE FROM bookmarks WHERE id = ?", [.integer(row.id)])
            }
            let tied = sessions.withValue { state -> [Grant] in
                let tied = state.grants.values.filter { $0.bookmarkId == row.id }
                for grant in tied { state.remove(grant: grant.id) }
                return tied
            }
            forgetRows(of: tied)
            return removed
        default:
            throw .invalidArgument("revoke takes exactly one of a URL or a bookmark")
        }
    }

    /// Grants removed from memory: their rows go at the next batch.
    private func forgetRows(of grants: [Grant]) {
        pending.change { changes in
            for grant in grants {
                changes.grants.remove(grant.id)
                if let row = grant.rowId { changes.deletedGrants.insert(row) }
            }
        }
        scheduleFlush()
    }
}
