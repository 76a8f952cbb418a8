import WharfSystem

/// Grants, and the leases that start and stop access through them.
extension AccessStore {
    /// What a resolution found: which grant covers the request, and the file as it is now.
    struct Authorization {
        var grantId: Int64
        /// Where the file is now (a real path).
        var path: String
        /// The granted directory the file is reached through, or nil for a file granted itself.
        var anchor: String?
        var fingerprint: Fingerprint
        var isDirectory: Bool
        var readOnly: Bool
        var isStale: Bool
    }

    private static let noGrant = "this client holds no grant for that URL"

    // MARK: Grants

    /// Records that `client` (of app identity `app`) was given `path` by a dialog: read-only for
    /// the importer, read-write for files the exporter wrote. `identity` is what the dialog saw
    /// when the human chose it. Granting the same path again refreshes the identity, and keeps
    /// the wider rights of the two.
    public func grant(app: String, client: ClientID, path: String, identity: FileIdentity,
                      readOnly: Bool) throws(AccessError) {
        let normalized = FilePath.normalize(path)
        let isDirectory = (try? FileStatus.of(normalized))?.kind == .directory
        let fingerprint = Fingerprint.recorded(identity, at: normalized)
        _ = try write { db in
            try Self.upsertGrant(db, instance: instance, client: client, app: app, path: normalized,
                                 fingerprint: fingerprint, isDirectory: isDirectory, readOnly: readOnly, bookmarkId: nil)
        }
    }

    /// Inserts or refreshes a grant, answering its row id. A grant from a dialog (`bookmarkId`
    /// nil) is never demoted to one that depends on a bookmark, so revoking a bookmark cannot
    /// take away what a human picked in this session.
    static func upsertGrant(_ db: SQLiteConnection, instance: String, client: ClientID, app: String, path: String,
                            fingerprint: Fingerprint, isDirectory: Bool, readOnly: Bool,
                            bookmarkId: Int64?) throws -> Int64 {
        let sql = """
            INSERT INTO grants (instance, client, app, path, device, inode, file_system, birth, is_directory,
                                read_only, bookmark_id, created)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (instance, client, path) DO UPDATE SET
                device = excluded.device, inode = excluded.inode, file_system = excluded.file_system,
                birth = excluded.birth, is_directory = excluded.is_directory,
                read_only = grants.read_only AND excluded.read_only,
                bookmark_id = CASE WHEN grants.bookmark_id IS NULL OR excluded.bookmark_id IS NULL
                                   THEN NULL ELSE excluded.bookmark_id END
            RETURNING id
            """
        let values: [SQLiteValue] = [.text(instance), .text(client.rawValue), .text(app), .text(path)]
            + SQLiteValue.fingerprint(fingerprint)
            + [.bool(isDirectory), .bool(readOnly), .optional(bookmarkId), .real(StateLocation.now())]
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
    /// lie inside a granted directory. Inside a directory, symbolic links are followed only as far
    /// as they stay inside it — a SwiftUI directory URL covers its contents, nothing more.
    public func resolve(app: String, client: ClientID, url: String) throws(AccessError) -> Lease {
        let authorization = try authorize(client: client, url: url)
        return try startLease(client: client, authorization, bookmark: nil)
    }

    /// Finds the grant covering `url` for `client` and checks the file against it. File-system
    /// checks run outside the store lock.
    func authorize(client: ClientID, url: String) throws(AccessError) -> Authorization {
        guard let raw = FileURL.pathOrURL(url) else {
            throw .invalidArgument("expected a file: URL or an absolute path")
        }
        let path = FilePath.normalize(raw)
        var candidates = [path]
        while let last = candidates.last, last != "/" { candidates.append(FilePath.directory(of: last)) }

        let placeholders = Array(repeating: "?", count: candidates.count).joined(separator: ", ")
        let grants: [GrantRow] = try read { db in
            var rows: [GrantRow] = []
            try db.query("SELECT \(GrantRow.columns) FROM grants WHERE instance = ? AND client = ? AND path IN (\(placeholders))",
                         [.text(instance), .text(client.rawValue)] + candidates.map { .text($0) }) { rows.append(GrantRow($0)) }
            return rows
        }
        if let exact = grants.first(where: { $0.path == path }) { return try authorizeExact(exact) }

        // Directories that contain the path: read-write ones first, then the nearest.
        let covering = grants.filter(\.isDirectory).sorted {
            $0.readOnly != $1.readOnly ? !$0.readOnly : $0.path.count > $1.path.count
        }
        var firstDenial: AccessError?
        for directory in covering {
            do { return try authorizeInside(directory, path: path) } catch { firstDenial = firstDenial ?? error }
        }
        throw firstDenial ?? .accessDenied(Self.noGrant)
    }

    /// A path granted itself: the very file → fresh; a regular file put in its place (an editor's
    /// atomic save) → stale, and the grant follows the new file; anything else → denied.
    private func authorizeExact(_ grant: GrantRow) throws(AccessError) -> Authorization {
        let handle = try GrantedFileOpener.open(target: grant.path, anchor: nil, granted: nil, mode: .path)
        let status: FileStatus
        let current: Fingerprint
        do {
            status = try handle.status()
            current = try Fingerprint.of(handle)
        } catch { throw .io(error) }
        var result = Authorization(grantId: grant.id, path: grant.path, anchor: nil, fingerprint: current,
                                   isDirectory: grant.isDirectory, readOnly: grant.readOnly, isStale: false)
        switch status.kind {
        case .directory where grant.isDirectory, .regular where !grant.isDirectory:
            if current.matches(grant.fingerprint) { return result }
            if status.kind == .regular {
                result.isStale = true
                return result
            }
        case .symlink:
            // Granted as the link itself (an unresolved alias): fine while it still leads to the
            // granted file, which is then used directly.
            if let target = try? FilePath.resolve(grant.path), let targetFingerprint = Fingerprint.of(path: target),
               targetFingerprint.matches(grant.fingerprint) {
                result.path = target
                result.fingerprint = targetFingerprint
                return result
            }
            throw .accessDenied("a symbolic link now stands where the granted file was")
        default:
            break
        }
        throw .accessDenied("the file at that URL is no longer the one that was granted")
    }

    /// A path inside a granted directory.
    private func authorizeInside(_ grant: GrantRow, path: String) throws(AccessError) -> Authorization {
        guard let root = try? FilePath.resolve(grant.path) else {
            throw .accessDenied("the granted folder no longer exists")
        }
        guard let target = try? FilePath.resolve(path) else {
            throw .accessDenied("nothing can be reached at that URL inside the granted folder")
        }
        guard target == root || target.hasPrefix(root == "/" ? "/" : root + "/") else {
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
            throw .accessDenied("only regular files and folders can be accessed")
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
            if authorization.isStale && authorization.anchor == nil {
                try db.run("UPDATE grants SET path = ?, device = ?, inode = ?, file_system = ?, birth = ? WHERE id = ?",
                           [.text(authorization.path)] + SQLiteValue.fingerprint(authorization.fingerprint)
                           + [.integer(authorization.grantId)])
            }
            try insertLease(db, accessId: accessId, client: client, authorization)
        }
        return Lease(accessId: accessId, url: FileURL.from(path: authorization.path), path: authorization.path,
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
             .text(authorization.path), .optional(authorization.anchor)] + SQLiteValue.fingerprint(authorization.fingerprint)
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
