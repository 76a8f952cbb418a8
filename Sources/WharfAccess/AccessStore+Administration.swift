import WharfSystem

/// What `wharf access list` and `wharf access revoke ID` need: every app's grants and
/// bookmarks, for the person at the keyboard rather than for a client.
extension AccessStore {
    /// Every grant held by a running Wharf process and every bookmark, of every app. Grants of
    /// processes that died without closing the store are cleared first. Bookmark tokens are not
    /// included: the person revokes by `id`, and a listing must not hand out keys.
    public func allEntries() throws(AccessError) -> [AccessEntry] {
        flush()
        try write { db in try Self.deleteDeadInstances(db, except: instance) }
        return try read { db in
            var entries: [AccessEntry] = []
            try db.query("""
                SELECT g.id, g.app, g.path, g.read_only, g.is_directory, g.created,
                       (SELECT count(*) FROM leases l WHERE l.grant_id = g.id), i.pid, g.client
                FROM grants g JOIN instances i ON i.id = g.instance ORDER BY g.app, g.path, g.id
                """) { row in
                entries.append(Self.entry(kind: .grant, row, bookmark: nil,
                                          holder: "pid \(row.int(7)), client \(row.text(8))"))
            }
            try db.query("""
                SELECT b.id, b.app, b.path, b.read_only, b.is_directory, b.created,
                       (SELECT count(*) FROM leases l JOIN grants g ON l.grant_id = g.id WHERE g.bookmark_id = b.id)
                FROM bookmarks b ORDER BY b.app, b.path, b.id
                """) { row in
                entries.append(Self.entry(kind: .bookmark, row, bookmark: nil, holder: nil))
            }
            return entries
        }
    }

    /// Revokes one entry by the `id` `allEntries` showed (`g12`, `b7`). Revoking a bookmark also
    /// revokes the grants sessions obtained by resolving it. Unknown ids are an error.
    public func revoke(id: String) throws(AccessError) {
        let table: String
        switch id.first {
        case "g": table = "grants"
        case "b": table = "bookmarks"
        default: throw .invalidArgument("an access id looks like g12 (a grant) or b7 (a bookmark)")
        }
        guard let row = Int64(id.dropFirst()), row > 0 else {
            throw .invalidArgument("an access id looks like g12 (a grant) or b7 (a bookmark)")
        }
        let removed = try write { db in
            try Self.recordRevocation(db, ofGrantsWhere: table == "grants" ? "id = ?" : "bookmark_id = ?", [.integer(row)])
            return try db.run("DELETE FROM \(table) WHERE id = ?", [.integer(row)])
        }
        guard removed == 1 else { throw .invalidArgument("no grant or bookmark has id \(id) (already revoked?)") }
    }
}
