import WharfSystem

/// Files a client moves (`presentMover`): which of its files it may ask to move, and how its
/// rights and the bookmarks follow them to where the human moved them.
extension AccessStore {
    /// A file a client holds a grant for, as a mover takes it: where it is, who it is, and the
    /// rights the client has to it.
    public struct GrantedFile: Sendable, Equatable {
        /// Where it is now (normalised; a granted link's own path).
        public var path: FilePath
        /// Who it is, read from the file itself as the grant was checked.
        public var identity: FileIdentity
        public var birth: Int64?
        public var isDirectory: Bool
        /// Granted as the link itself (an importer's unresolved alias): moved as a link.
        public var isSymlink: Bool
        public var readOnly: Bool

        public init(path: FilePath, identity: FileIdentity, birth: Int64?, isDirectory: Bool, isSymlink: Bool, readOnly: Bool) {
            self.path = path
            self.identity = identity
            self.birth = birth
            self.isDirectory = isDirectory
            self.isSymlink = isSymlink
            self.readOnly = readOnly
        }
    }

    /// The file `url` names, when `client` holds a grant covering it (given by a dialog, or by
    /// a resolved bookmark) and the file there is the one granted: checked exactly as
    /// `resolveAccess` checks it, without starting a lease. Looks at the disk: call it off the
    /// read loop.
    ///
    /// - Throws: ``AccessError/accessDenied(_:)`` otherwise.
    public func grantedFile(client: ClientID, url: String) throws(AccessError) -> GrantedFile {
        let authorization = try authorize(client: client, url: url)
        return GrantedFile(path: authorization.path, identity: authorization.fingerprint.identity,
                           birth: authorization.fingerprint.birth, isDirectory: authorization.isDirectory,
                           isSymlink: authorization.isSymlink, readOnly: authorization.readOnly)
    }

    /// `source` (as ``grantedFile(client:url:)`` found it) was moved to `destination`, where it
    /// now is `identity` (the same file after a rename, a copy of it after a move to another
    /// file system). The client's rights follow it:
    ///
    /// - its grant of the old path ends (leases started through it stay to be released and
    ///   refuse I/O from now on, as after a revocation), and so do its grants of what was
    ///   inside a moved folder;
    /// - it is granted the new path with the rights it had (those of the old grant, tied to the
    ///   same bookmark, or, for a file it reached inside a granted folder, that folder's), and
    ///   what was inside a moved folder and granted itself is granted at its new place;
    /// - every bookmark of the file (of any app: a bookmark is a claim on a file, and the file
    ///   is now there) and of what was inside a moved folder is rewritten to the new place, so
    ///   that resolving it gives that place. That write is durable before this returns.
    ///
    /// - Throws: the store's failure to rewrite the bookmarks (the grants have moved by then).
    public func moved(app: String, client: ClientID, source: GrantedFile, to destination: FilePath,
                      identity: FileIdentity, birth: Int64?) throws(AccessError) {
        let from = source.path.normalized
        let to = destination.normalized
        let before = Fingerprint(identity: source.identity, birth: source.birth)
        let now = StateLocation.now()

        // This client's grants of the file, and of what was inside it, come off; their rights
        // are what the new ones get.
        let (exact, inside) = sessions.withValue { state -> (Grant?, [Grant]) in
            let exact = state.grant(of: client, at: from).flatMap { state.remove(grant: $0.id) }
            var inside: [Grant] = []
            if source.isDirectory, let ids = state.clients[client]?.byPath {
                for (path, id) in ids where from.contains(path) && path != from {
                    if let grant = state.remove(grant: id) { inside.append(grant) }
                }
            }
            return (exact, inside)
        }
        // What was inside is found at its new place, without following a link (a copy across
        // file systems has new identities).
        let relocated = inside.map { grant -> Grant in
            var grant = grant
            let path = Self.rebased(grant.path, from: from, to: to)
            if let fingerprint = Self.fingerprint(at: path, isDirectory: grant.isDirectory, isSymlink: grant.isSymlink) {
                grant.fingerprint = fingerprint
            }
            grant.path = path
            grant.id = 0
            grant.rowId = nil
            grant.created = now
            return grant
        }
        let ids = sessions.withValue { state -> [Int] in
            var ids = [state.upsert(Grant(
                client: client, app: app, path: to, fingerprint: Fingerprint(identity: identity, birth: birth),
                isDirectory: source.isDirectory && !source.isSymlink, isSymlink: source.isSymlink,
                readOnly: exact?.readOnly ?? source.readOnly, bookmarkId: exact?.bookmarkId, created: now))]
            for grant in relocated { ids.append(state.upsert(grant)) }
            return ids
        }
        pending.change { changes in
            for grant in [exact].compactMap({ $0 }) + inside {
                changes.grants.remove(grant.id)
                if let row = grant.rowId { changes.deletedGrants.insert(row) }
            }
            changes.grants.formUnion(ids)
        }
        scheduleFlush()

        try moveBookmarks(from: from, to: to, before: before, after: Fingerprint(identity: identity, birth: birth),
                          isDirectory: source.isDirectory && !source.isSymlink)
    }

    /// Rewrites the bookmarks of the file moved from `from` (it was `before`, it is `after`)
    /// and, for a folder, of everything that was inside it.
    private func moveBookmarks(from: FilePath, to: FilePath, before: Fingerprint, after: Fingerprint,
                               isDirectory: Bool) throws(AccessError) {
        struct Row { var id: Int64; var path: FilePath; var fingerprint: Fingerprint; var isDirectory: Bool }
        let prefix = from == .root ? from.bytes : from.bytes + [UInt8(ascii: "/")]
        let rows = try read { db in
            var rows: [Row] = []
            try db.query("""
                SELECT id, path, device, inode, file_system, birth, is_directory FROM bookmarks
                WHERE path = ? OR (? AND substr(path, 1, ?) = ?)
                """, [.path(from), .bool(isDirectory), .integer(Int64(prefix.count)), .blob(prefix)]) { row in
                rows.append(Row(id: row.int(0), path: row.path(1), fingerprint: row.fingerprint(at: 2), isDirectory: row.bool(6)))
            }
            return rows
        }
        // The file itself only when the bookmark is of it (another file bookmarked at that path
        // earlier is not what moved); what was inside a folder, as it is at its new place.
        var updates: [(Int64, FilePath, Fingerprint)] = []
        for row in rows {
            if row.path == from {
                if row.fingerprint.matches(before) { updates.append((row.id, to, after)) }
                continue
            }
            let path = Self.rebased(row.path, from: from, to: to)
            let found = Self.fingerprint(at: path, isDirectory: row.isDirectory, isSymlink: false) ?? row.fingerprint
            updates.append((row.id, path, found))
        }
        guard !updates.isEmpty else { return }
        try write(durable: true) { db in
            for (id, path, fingerprint) in updates {
                try db.run("UPDATE bookmarks SET path = ?, device = ?, inode = ?, file_system = ?, birth = ? WHERE id = ?",
                           [.path(path)] + SQLiteValue.fingerprint(fingerprint) + [.integer(id)])
            }
        }
    }

    /// `path`, which is `from` or inside it, moved along with it to `to`.
    static func rebased(_ path: FilePath, from: FilePath, to: FilePath) -> FilePath {
        guard path != from else { return to }
        let rest = from == .root ? Array(path.bytes.dropFirst()) : Array(path.bytes.dropFirst(from.bytes.count + 1))
        return to.appending(rest)
    }

    /// The fingerprint of what is at `path` when it is of the kind expected, a link never
    /// followed; nil otherwise.
    private static func fingerprint(at path: FilePath, isDirectory: Bool, isSymlink: Bool) -> Fingerprint? {
        guard let status = try? FileStatus.ofLink(path) else { return nil }
        let wanted: FileStatus.Kind = isSymlink ? .symlink : isDirectory ? .directory : .regular
        guard status.kind == wanted, let identity = try? FileIdentity.of(path, followSymlinks: false) else { return nil }
        let born = FileBirth.of(path, followSymlinks: false)
        return Fingerprint(identity: identity, birth: born?.inode == identity.inode ? born?.birth : nil)
    }
}
