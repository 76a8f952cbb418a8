import WharfSystem

/// Grants, and the leases that start and stop access through them.
extension AccessStore {
    /// What a resolution found: which grant covers the request, and the file as it is now.
    struct Authorization {
        var grantId: Int
        /// Where the file is now (a real path; a granted link's own path).
        var path: FilePath
        /// The granted directory the file is reached through, or nil for a file granted itself.
        var anchor: FilePath?
        var fingerprint: Fingerprint
        /// What the grant covers (the directory, for a file inside one).
        var grantFingerprint: Fingerprint
        var isDirectory: Bool
        var isSymlink: Bool
        var readOnly: Bool
        var isStale: Bool
    }

    private static let noGrant = "this client holds no grant for that URL"

    // MARK: Grants

    /// Records that `client` (of app identity `app`) was given `path` by a dialog: read-only for
    /// the importer, read-write for files the exporter wrote. `identity`, `birth` and
    /// `isDirectory` are what the dialog read from the file the human chose, through the
    /// descriptor it opened (of the link itself when `isSymlink`: an importer's unresolved alias
    /// is granted as the link), so the store looks at nothing on disk here. Granting the same
    /// path again refreshes the identity, and keeps the wider rights of the two when it is the
    /// same file (another file at that path gets only what this gift gives). In memory at
    /// once, in the store shortly after.
    public func grant(app: String, client: ClientID, path: FilePath, identity: FileIdentity, birth: Int64?,
                      isDirectory: Bool, readOnly: Bool, isSymlink: Bool = false) {
        let normalized = path.normalized
        let fingerprint = Fingerprint(identity: identity, birth: birth)
        let id = sessions.withValue { state in
            state.upsert(Grant(client: client, app: app, path: normalized, fingerprint: fingerprint,
                               isDirectory: isDirectory && !isSymlink, isSymlink: isSymlink, readOnly: readOnly,
                               bookmarkId: nil, created: StateLocation.now()))
        }
        pending.change { $0.grants.insert(id) }
        scheduleFlush()
    }

    // MARK: Resolving URLs

    /// Starts access to `url` (the twin of `startAccessingSecurityScopedResource`): answers a
    /// lease to release exactly once. `url` is a `file:` URL or an absolute path.
    ///
    /// The URL is normalised lexically (`..` folded) and must then be exactly a granted path, or
    /// lie inside a granted directory, compared as bytes. Inside a directory, symbolic links are
    /// followed only as far as they stay inside it — a SwiftUI directory URL covers its
    /// contents, nothing more. Looks at the disk: call it off the read loop.
    public func resolve(app: String, client: ClientID, url: String) throws(AccessError) -> Lease {
        let authorization = try authorize(client: client, url: url)
        return try startLease(client: client, authorization, bookmark: nil)
    }

    /// Finds the grant covering `url` for `client` and checks the file against it. The
    /// client's grants are in memory and matched by bytes, so the cost is linear in the URL's
    /// length whatever its depth; file-system checks run outside every lock.
    func authorize(client: ClientID, url: String) throws(AccessError) -> Authorization {
        guard let raw = FileURL.pathOrURL(url) else {
            throw .invalidArgument("expected a file: URL or an absolute path")
        }
        let path = raw.normalized
        try dropRevokedGrants()
        let (exact, covering) = sessions.withValue { state in
            (state.grant(of: client, at: path), state.directories(of: client, containing: path))
        }
        if let exact { return try authorizeExact(exact) }
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
    private func authorizeExact(_ grant: Grant) throws(AccessError) -> Authorization {
        let opened = try GrantedFileOpener.openAndDescribe(target: grant.path, anchor: nil, granted: nil, mode: .path)
        let (status, current) = (opened.status, opened.fingerprint)
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
        return Authorization(grantId: grant.id, path: grant.path, anchor: nil, fingerprint: current,
                             grantFingerprint: grant.fingerprint, isDirectory: grant.isDirectory,
                             isSymlink: grant.isSymlink, readOnly: grant.readOnly, isStale: false)
    }

    /// A path inside a granted directory.
    private func authorizeInside(_ grant: Grant, path: FilePath) throws(AccessError) -> Authorization {
        guard let root = try? grant.path.resolved() else {
            throw .accessDenied("the granted folder no longer exists")
        }
        guard let target = try? path.resolved() else {
            throw .accessDenied("nothing can be reached at that URL inside the granted folder")
        }
        guard root.contains(target) else {
            throw .accessDenied("that URL leads outside the granted folder")
        }
        let opened = try GrantedFileOpener.openAndDescribe(target: target, anchor: target == root ? nil : root,
                                                           granted: grant.fingerprint, mode: .path)
        let (status, fingerprint) = (opened.status, opened.fingerprint)
        if target == root && !fingerprint.matches(grant.fingerprint) {
            throw .accessDenied("the granted folder is no longer the one that was granted")
        }
        guard status.kind == .regular || status.kind == .directory else {
            throw .accessDenied("only regular files and folders can be accessed (that is \(status.specialKindDescription))")
        }
        return Authorization(grantId: grant.id, path: target, anchor: target == root ? nil : root,
                             fingerprint: fingerprint, grantFingerprint: grant.fingerprint,
                             isDirectory: status.kind == .directory, isSymlink: false,
                             readOnly: grant.readOnly, isStale: false)
    }

    /// Records the lease, checking that its grant was not revoked while the file system was
    /// being looked at.
    func startLease(client: ClientID, _ authorization: Authorization, bookmark: String?) throws(AccessError) -> Lease {
        let accessId = try Self.newAccessId()
        let lease = LeaseState(
            accessId: accessId, client: client, grantId: authorization.grantId, path: authorization.path,
            anchor: authorization.anchor, fingerprint: authorization.fingerprint,
            grantFingerprint: authorization.grantFingerprint, isDirectory: authorization.isDirectory,
            isSymlink: authorization.isSymlink, readOnly: authorization.readOnly, created: StateLocation.now())
        try sessions.withValue { state throws(AccessError) in
            guard state.grants[authorization.grantId] != nil else { throw .accessDenied("the grant was revoked") }
            guard state.leaseCount(client: client) < Self.maximumLeasesPerClient else {
                throw .tooManyLeases(limit: Self.maximumLeasesPerClient)
            }
            state.add(lease: lease)
        }
        pending.change { $0.leases.insert(accessId) }
        scheduleFlush()
        return Lease(accessId: accessId, path: authorization.path, readOnly: authorization.readOnly,
                     isStale: authorization.isStale, bookmark: bookmark, isDirectory: authorization.isDirectory)
    }

    static func newAccessId() throws(AccessError) -> String {
        do { return try RandomTokens.accessId() } catch { throw .io(error) }
    }

    // MARK: Releasing

    /// Ends one lease (the twin of `stopAccessingSecurityScopedResource`). Releasing an id twice,
    /// or an id this client does not hold, is an error: an unbalanced release is a bug in the
    /// client worth telling it about. A lease whose grant was revoked is still released normally.
    public func release(client: ClientID, accessId: String) throws(AccessError) {
        let written = try sessions.withValue { state throws(AccessError) -> Bool in
            guard let lease = state.leases[accessId], lease.client == client else {
                if state.released[client]?.contains(accessId) == true {
                    throw .alreadyReleased("access \(accessId) was already released; each resolveAccess is released once")
                }
                throw .unknownAccessId("this client holds no access with id \(accessId)")
            }
            state.removeLease(accessId)
            state.released[client, default: ReleasedAccessIds()].insert(accessId)
            return lease.written
        }
        pending.change { changes in
            if written || !changes.leases.contains(accessId) { changes.deletedLeases.insert(accessId) }
            changes.leases.remove(accessId)
        }
        scheduleFlush()
    }

    /// The end of a session: releases its leases (answering how many were left open) and drops
    /// its grants, which belong to the session. Bookmarks, which belong to the app, stay.
    @discardableResult
    public func endSession(client: ClientID) -> Int {
        let (leases, grantRows, grantIds) = sessions.withValue { state -> ([LeaseState], [Int64], [Int]) in
            let leases = state.removeLeases(of: client)
            let ids = state.clients[client].map { Array($0.byPath.values) } ?? []
            var rows: [Int64] = []
            for id in ids { if let grant = state.remove(grant: id), let row = grant.rowId { rows.append(row) } }
            state.clients[client] = nil
            state.released[client] = nil
            return (leases, rows, ids)
        }
        pending.change { changes in
            for lease in leases {
                if lease.written { changes.deletedLeases.insert(lease.accessId) }
                changes.leases.remove(lease.accessId)
            }
            for id in grantIds { changes.grants.remove(id) }
            changes.deletedGrants.formUnion(grantRows)
        }
        scheduleFlush()
        return leases.count
    }

    /// Releases every lease `client` still holds (answers how many there were), keeping its grants.
    @discardableResult
    public func releaseAll(client: ClientID) -> Int {
        let leases = sessions.withValue { state -> [LeaseState] in
            let leases = state.removeLeases(of: client)
            state.released[client] = nil
            return leases
        }
        pending.change { changes in
            for lease in leases {
                if lease.written { changes.deletedLeases.insert(lease.accessId) }
                changes.leases.remove(lease.accessId)
            }
        }
        scheduleFlush()
        return leases.count
    }

    /// How many leases `client` holds open (including any whose grant was revoked since).
    public func activeLeaseCount(client: ClientID) -> Int {
        sessions.withValue { state in state.leaseCount(client: client) }
    }
}
