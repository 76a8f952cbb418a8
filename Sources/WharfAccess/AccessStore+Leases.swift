import WharfSystem

/// Grants, and the leases that start and stop access through them.
extension AccessStore {
    /// What a resolution found: which grant covers the request, and the file as it is now.
    struct Authorization {
        var grantId: Int64
        /// Where the file is now (a real path; a granted link's own path).
        var path: FilePath
        /// The granted directory the file is reached through, or nil for a file granted itself.
        var anchor: FilePath?
        var fingerprint: Fingerprint
        var isDirectory: Bool
        var readOnly: Bool
        var isStale: Bool
    }

    private static let noGrant = "this client holds no grant for that URL"

    // MARK: Grants

    /// Records that `client` (of app identity `app`) was given `path` by a dialog: read-only for
    /// the importer, read-write for files the exporter wrote. `identity` is what the dialog saw
    /// when the human chose it (of the link itself when `isSymlink`: an importer's unresolved
    /// alias is granted as the link). Granting the same path again refreshes the identity, and
    /// keeps the wider rights of the two.
    public func grant(app: String, client: ClientID, path: FilePath, identity: FileIdentity,
                      readOnly: Bool, isSymlink: Bool = false) throws(AccessError) {
        let normalized = path.normalized
        let isDirectory = !isSymlink && (try? FileStatus.of(normalized))?.kind == .directory
        let fingerprint = isSymlink
            ? Fingerprint(identity: identity, birth: nil)
            : Fingerprint.recorded(identity, at: normalized)
        _ = try write { db in
            try Self.upsertGrant(db, instance: instance, client: client, app: app, path: normalized,
                                 fingerprint: fingerprint, isDirectory: isDirectory, readOnly: readOnly,
                                 bookmarkId: nil, isSymlink: isSymlink)
        }
    }

    /// Inserts or refreshes a grant, answering its row id. A grant from a dialog (`bookmarkId`
    /// nil) is never demoted to one that depends on a bookmark, so revoking a bookmark cannot
    /// take away what a human picked in this session.
    static func upsertGrant(_ db: SQLiteConnection, instance: String, client: ClientID, app: String, path: FilePath,
                            fingerprint: Fingerprint, isDirectory: Bool, readOnly: Bool,
                            bookmarkId: Int64?, isSymlink: Bool = false) throws -> Int64 {
        let sql = """
            INSERT INTO grants (instance, client, app, path, device, inode, file_system, birth, is_directory,
                                read_only, bookmark_id, created, is_symlink)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (instance, client, path) DO UPDATE SET
                device = excluded.device, inode = excluded.inode, file_system = excluded.file_system,
                birth = excluded.birth, is_directory = excluded.is_directory, is_symlink = excluded.is_symlink,
                read_only = grants.read_only AND excluded.read_only,
                bookmark_id = CASE WHEN grants.bookmark_id IS NULL OR excluded.bookmark_id IS NULL
                                   THEN NULL ELSE excluded.bookmark_id END
            RETURNING id
            """
        let values: [SQLiteValue] = [.text(instance), .text(client.rawValue), .text(app), .path(path)]
            + SQLiteValue.fingerprint(fingerprint)
            + [.bool(isDirectory), .bool(readOnly), .optional(bookmarkId), .real(StateLocation.now()), .bool(isSymlink)]
        guard let id = try db.first(sql, values, map: { $0.int(0) }) else {
            throw AccessError.store("recording a grant returned no row")
        }
        return id
    }

    // MARK: Resolving URLs

    /// Starts access to `url` (the twin of `startAccessingSecurityScopedResource`): answers a
    /// lease to release exactly once. `url` is a `file:` URL or an absolute path.
    ///
    /// The URL is normalised lexically (`..` folded) and must then be exactly a granted path, or
    /// lie inside a granted directory, compared as bytes. Inside a directory, symbolic links are
    /// followed only as far as they stay inside it — a SwiftUI directory URL covers its
    /// contents, nothing more.
    public func resolve(app: String, client: ClientID, url: String) throws(AccessError) -> Lease {
        let authorization = try authorize(client: client, url: url)
        return try startLease(client: client, authorization, bookmark: nil)
    }

    /// Finds the grant covering `url` for `client` and checks the file against it. File-system
    /// checks run outside the store lock. The client's grants are read once and matched in
    /// memory, so the cost is linear in the URL's length whatever its depth.
    func authorize(client: ClientID, url: String) throws(AccessError) -> Authorization {
        guard let raw = FileURL.pathOrURL(url) else {
            throw .invalidArgument("expected a file: URL or an absolute path")
        }
        let path = raw.normalized
        let grants: [GrantRow] = try read { db in
            var rows: [GrantRow] = []
            try db.query("SELECT \(GrantRow.columns) FROM grants WHERE instance = ? AND client = ?",
                         [.text(instance), .text(client.rawValue)]) { rows.append(GrantRow($0)) }
            return rows
        }
        if let exact = grants.first(where: { $0.path == path }) { return try authorizeExact(exact) }

        // Directories that contain the path: read-write ones first, then the nearest.
        let covering = grants.filter { $0.isDirectory && $0.path.contains(path) }.sorted {
            $0.readOnly != $1.readOnly ? !$0.readOnly : $0.path.bytes.count > $1.path.bytes.count
        }
        var firstDenial: AccessError?
        for directory in covering {
            do { return try authorizeInside(directory, path: path) } catch { firstDenial = firstDenial ?? error }
        }
        throw firstDenial ?? .accessDenied(Self.noGrant)
    }

    /// A path granted itself. The very file that was granted → access; anything else standing
    /// there now (another file renamed over it, a hard link to another file, a symbolic link
    /// swapped in, a directory) → denied: a grant is for the file the human picked, and a
    /// different file is never served under it. (A bookmark follows its document through an
    /// editor's atomic save; resolving it again is how a client gets that.) A grant for a
    /// symbolic link itself (an unresolved alias) holds while that same link is there.
    private func authorizeExact(_ grant: GrantRow) throws(AccessError) -> Authorization {
        let handle = try GrantedFileOpener.open(target: grant.path, anchor: nil, granted: nil, mode: .path)
        let status: FileStatus
        let current: Fingerprint
        do {
            status = try handle.status()
            current = try Fingerprint.of(handle)
        } catch { throw .io(error) }
        let result = Authorization(grantId: grant.id, path: grant.path, anchor: nil, fingerprint: current,
                                   isDirectory: grant.isDirectory, readOnly: grant.readOnly, isStale: false)
        let expected: FileStatus.Kind = grant.isSymlink ? .symlink : grant.isDirectory ? .directory : .regular
        guard status.kind == expected else {
            if status.kind == .symlink {
                throw .accessDenied("a symbolic link now stands where the granted file was")
            }
            throw .accessDenied("the file at that URL is no longer the one that was granted")
        }
        guard current.matches(grant.fingerprint) else {
            throw .accessDenied("the file at that URL is no longer the one that was granted (it was replaced "
                + "since it was picked); ask the human again, or resolve a bookmark to follow a saved document")
        }
        return result
    }

    /// A path inside a granted directory.
    private func authorizeInside(_ grant: GrantRow, path: FilePath) throws(AccessError) -> Authorization {
        guard let root = try? grant.path.resolved() else {
            throw .accessDenied("the granted folder no longer exists")
        }
        guard let target = try? path.resolved() else {
            throw .accessDenied("nothing can be reached at that URL inside the granted folder")
        }
        guard root.contains(target) else {
            throw .accessDenied("that URL leads outside the granted folder")
        }
        let handle = try GrantedFileOpener.open(target: target, anchor: target == root ? nil : root,
                                                granted: grant.fingerprint, mode: .path)
        let status: FileStatus
        let fingerprint: Fingerprint
        do {
            status = try handle.status()
            fingerprint = try Fingerprint.of(handle)
        } catch { throw .io(error) }
        if target == root && !fingerprint.matches(grant.fingerprint) {
            throw .accessDenied("the granted folder is no longer the one that was granted")
        }
        guard status.kind == .regular || status.kind == .directory else {
            throw .accessDenied("only regular files and folders can be accessed (that is \(status.specialKindDescription))")
        }
        return Authorization(grantId: grant.id, path: target, anchor: target == root ? nil : root,
                             fingerprint: fingerprint, isDirectory: status.kind == .directory,
                             readOnly: grant.readOnly, isStale: false)
    }

    /// Records the lease (and a stale grant's new identity) in one short transaction, checking
    /// that the grant was not revoked while the file system was being looked at.
    func startLease(client: ClientID, _ authorization: Authorization, bookmark: String?) throws(AccessError) -> Lease {
        let accessId = try Self.newAccessId()
        try write { db in
            guard try db.first("SELECT 1 FROM grants WHERE id = ?", [.integer(authorization.grantId)], map: { _ in true }) != nil else {
                throw AccessError.accessDenied("the grant was revoked")
            }
            try insertLease(db, accessId: accessId, client: client, authorization)
        }
        return Lease(accessId: accessId, path: authorization.path,
                     readOnly: authorization.readOnly, isStale: authorization.isStale, bookmark: bookmark,
                     isDirectory: authorization.isDirectory)
    }

    static func newAccessId() throws(AccessError) -> String {
        do { return try RandomTokens.accessId() } catch { throw .io(error) }
    }

    /// Inserts a lease row; call inside a write transaction.
    func insertLease(_ db: SQLiteConnection, accessId: String, client: ClientID, _ authorization: Authorization) throws {
        try db.run("""
            INSERT INTO leases (access_id, instance, client, grant_id, path, anchor, device, inode, file_system,
                                birth, is_directory, read_only, created)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(accessId), .text(instance), .text(client.rawValue), .integer(authorization.grantId),
             .path(authorization.path), .optional(authorization.anchor)] + SQLiteValue.fingerprint(authorization.fingerprint)
            + [.bool(authorization.isDirectory), .bool(authorization.readOnly), .real(StateLocation.now())])
    }

    // MARK: Releasing

    /// Ends one lease (the twin of `stopAccessingSecurityScopedResource`). Releasing an id twice,
    /// or an id this client does not hold, is an error: an unbalanced release is a bug in the
    /// client worth telling it about. A lease whose grant was revoked is still released normally.
    public func release(client: ClientID, accessId: String) throws(AccessError) {
        let removed = try write { db in
            try db.run("DELETE FROM leases WHERE access_id = ? AND instance = ? AND client = ?",
                       [.text(accessId), .text(instance), .text(client.rawValue)])
        }
        if removed == 1 {
            rememberReleased(accessId, by: client)
            return
        }
        if wasReleased(accessId, by: client) {
            throw .alreadyReleased("access \(accessId) was already released; each resolveAccess is released once")
        }
        throw .unknownAccessId("this client holds no access with id \(accessId)")
    }

    /// Releases every lease `client` still holds (it disconnected); answers how many there were.
    @discardableResult
    public func releaseAll(client: ClientID) throws(AccessError) -> Int {
        let count = try write { db in
            try db.run("DELETE FROM leases WHERE instance = ? AND client = ?", [.text(instance), .text(client.rawValue)])
        }
        forgetReleased(of: client)
        return count
    }

    /// The end of a session: releases its leases (answering how many were left open) and drops
    /// its grants, which belong to the session. Bookmarks, which belong to the app, stay.
    @discardableResult
    public func endSession(client: ClientID) throws(AccessError) -> Int {
        let count = try write { db in
            let leases = try db.run("DELETE FROM leases WHERE instance = ? AND client = ?",
                                    [.text(instance), .text(client.rawValue)])
            try db.run("DELETE FROM grants WHERE instance = ? AND client = ?", [.text(instance), .text(client.rawValue)])
            return leases
        }
        forgetReleased(of: client)
        return count
    }

    /// How many leases `client` holds open (including any whose grant was revoked since).
    public func activeLeaseCount(client: ClientID) throws(AccessError) -> Int {
        try read { db in
            Int(try db.first("SELECT count(*) FROM leases WHERE instance = ? AND client = ?",
                             [.text(instance), .text(client.rawValue)], map: { $0.int(0) }) ?? 0)
        }
    }
}
