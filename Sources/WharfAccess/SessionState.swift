import WharfSystem

/// What this process's sessions hold, in memory: grants and the leases started through them.
///
/// Only touched under `AccessStore.sessions`' lock, and only for bookkeeping: every file-system
/// check happens outside it, on copies.
struct SessionState {
    /// Every live grant, by its local id (stable for the grant's life; `rowId` is the store's).
    var grants: [Int: Grant] = [:]
    /// Per client: its grants by exact path, and which of them are directories.
    var clients: [ClientID: ClientGrants] = [:]
    /// Every lease not yet released, by access id. Changed only through `add(lease:)`,
    /// `removeLease(_:)` and the grant methods, which keep the two indexes below in step.
    private(set) var leases: [String: LeaseState] = [:]
    /// The access ids of the leases started through each grant (and still tied to it), so that
    /// counting or untying a grant's leases does not walk every lease of the process.
    private var leasesByGrant: [Int: Set<String>] = [:]
    /// The access ids of each client's leases, so that its count and its session's end do not
    /// walk every lease of the process.
    private var leasesByClient: [ClientID: Set<String>] = [:]
    var nextGrantId = 1
    /// Incremented each time a write-behind batch commits; a grant written in batch `n` has
    /// `writtenIn == n`, so a revocation check that read the store after batch `m` only judges
    /// grants with `writtenIn <= m`.
    var batchesWritten: UInt64 = 0
    /// Per client: the access ids it released lately, so a second release is told apart from
    /// an id that was never its own.
    var released: [ClientID: ReleasedAccessIds] = [:]

    /// The grant of `client` for exactly `path`.
    func grant(of client: ClientID, at path: FilePath) -> Grant? {
        clients[client]?.byPath[path].flatMap { grants[$0] }
    }

    /// The client's directory grants that contain `path`: read-write ones first, then the
    /// nearest. Each check compares bytes, linear in the grant's length.
    func directories(of client: ClientID, containing path: FilePath) -> [Grant] {
        guard let ids = clients[client]?.directories else { return [] }
        return ids.compactMap { grants[$0] }.filter { $0.path.contains(path) }.sorted {
            $0.readOnly != $1.readOnly ? !$0.readOnly : $0.path.bytes.count > $1.path.bytes.count
        }
    }

    /// Adds a grant, or refreshes the client's grant for the same path (the identity becomes
    /// the new one). Given again for the same file, the rights widen to the wider of the two,
    /// and the grant stays tied to a bookmark exactly while its rights rest on one: a dialog's
    /// gift that gives them alone unties it (revoking a bookmark never takes away what a dialog
    /// gave), and a bookmark's gift that widens them ties it to that bookmark (revoking the
    /// bookmark takes the grant with it, so write access a bookmark gave never stays behind on
    /// an importer's read-only pick of the same file). Given for another file now at that path,
    /// the grant is the new gift's alone: rights given for a file that is gone are not the new
    /// one's. Either way `new` is its latest gift. Answers its local id.
    ///
    /// The grant is untied (`bookmarkId` nil) only while a dialog alone gave it its rights.
    mutating func upsert(_ new: Grant) -> Int {
        let gift = Grant.Gift(time: new.created, readOnly: new.readOnly, bookmarkId: new.bookmarkId)
        if let id = clients[new.client]?.byPath[new.path], var old = grants[id] {
            let sameFile = old.fingerprint.matches(new.fingerprint) && old.isDirectory == new.isDirectory
                && old.isSymlink == new.isSymlink
            old.latestGift = gift
            old.fingerprint = new.fingerprint
            old.isDirectory = new.isDirectory
            old.isSymlink = new.isSymlink
            if !sameFile {
                old.readOnly = new.readOnly
                old.bookmarkId = new.bookmarkId
            } else {
                let readOnly = old.readOnly && new.readOnly
                if new.bookmarkId == nil {
                    // A dialog's gift: untied when it alone gives these rights.
                    if new.readOnly == readOnly { old.bookmarkId = nil }
                } else if old.bookmarkId == nil {
                    // A bookmark's gift on a dialog's grant: tied only when it widens the rights.
                    if old.readOnly != readOnly { old.bookmarkId = new.bookmarkId }
                } else if new.readOnly == readOnly {
                    old.bookmarkId = new.bookmarkId
                }
                old.readOnly = readOnly
            }
            grants[id] = old
            updateDirectoryIndex(old)
            return id
        }
        var grant = new
        grant.latestGift = gift
        grant.id = nextGrantId
        nextGrantId += 1
        grants[grant.id] = grant
        clients[grant.client, default: ClientGrants()].byPath[grant.path] = grant.id
        updateDirectoryIndex(grant)
        return grant.id
    }

    private mutating func updateDirectoryIndex(_ grant: Grant) {
        clients[grant.client, default: ClientGrants()].directories.remove(grant.id)
        if grant.isDirectory { clients[grant.client]?.directories.insert(grant.id) }
    }

    /// Removes a grant (revoked, or its session ended). Its leases stay, to be released, but
    /// lose their grant: I/O through them is refused from then on.
    @discardableResult
    mutating func remove(grant id: Int) -> Grant? {
        guard let grant = grants.removeValue(forKey: id) else { return nil }
        clients[grant.client]?.byPath[grant.path] = nil
        clients[grant.client]?.directories.remove(id)
        for accessId in leasesByGrant.removeValue(forKey: id) ?? [] { leases[accessId]?.grantId = nil }
        return grant
    }

    /// A grant another process revoked, given again since: all that is left of it is its latest
    /// gift, as if this process had heard of the revocation first and the new pick had made a
    /// new grant. Its rights are that gift's (not the wider ones merged from gifts before the
    /// revocation), it has no row (it is written afresh), and the leases started before the
    /// gift, on the consent revoked, refuse I/O from now on.
    mutating func renewAfterRevocation(_ id: Int) {
        guard var grant = grants[id] else { return }
        grant.readOnly = grant.latestGift.readOnly
        grant.bookmarkId = grant.latestGift.bookmarkId
        grant.rowId = nil
        grants[id] = grant
        for accessId in leasesByGrant[id] ?? [] {
            guard let lease = leases[accessId], lease.created < grant.latestGift.time else { continue }
            leases[accessId]?.grantId = nil
            leasesByGrant[id]?.remove(accessId)
        }
    }

    /// How many leases are open through a grant.
    func leaseCount(of grant: Int) -> Int { leasesByGrant[grant]?.count ?? 0 }

    /// How many leases `client` holds (including any whose grant was revoked since).
    func leaseCount(client: ClientID) -> Int { leasesByClient[client]?.count ?? 0 }

    /// Records a started lease.
    mutating func add(lease: LeaseState) {
        leases[lease.accessId] = lease
        leasesByClient[lease.client, default: []].insert(lease.accessId)
        if let grant = lease.grantId { leasesByGrant[grant, default: []].insert(lease.accessId) }
    }

    /// Forgets a lease (released); answers it.
    @discardableResult
    mutating func removeLease(_ accessId: String) -> LeaseState? {
        guard let lease = leases.removeValue(forKey: accessId) else { return nil }
        leasesByClient[lease.client]?.remove(accessId)
        if leasesByClient[lease.client]?.isEmpty == true { leasesByClient[lease.client] = nil }
        if let grant = lease.grantId {
            leasesByGrant[grant]?.remove(accessId)
            if leasesByGrant[grant]?.isEmpty == true { leasesByGrant[grant] = nil }
        }
        return lease
    }

    /// Forgets every lease of `client`; answers them.
    mutating func removeLeases(of client: ClientID) -> [LeaseState] {
        (leasesByClient[client] ?? []).compactMap { removeLease($0) }
    }

    /// Changes what a lease records besides its client and grant, which the indexes hold.
    mutating func update(lease accessId: String, _ change: (inout LeaseState) -> Void) {
        guard var lease = leases[accessId] else { return }
        let (client, grant) = (lease.client, lease.grantId)
        change(&lease)
        precondition(lease.client == client && lease.grantId == grant, "a lease's client and grant are indexed")
        leases[accessId] = lease
    }
}

/// One client's grants, indexed.
struct ClientGrants {
    var byPath: [FilePath: Int] = [:]
    var directories: Set<Int> = []
}

/// A grant: what one session may reach.
struct Grant {
    /// Local id (0 until added).
    var id = 0
    /// The store's row id, once written; nil before.
    var rowId: Int64?
    /// The batch that last wrote it (see `SessionState.batchesWritten`).
    var writtenIn: UInt64 = 0
    var client: ClientID
    var app: String
    var path: FilePath
    var fingerprint: Fingerprint
    var isDirectory: Bool
    /// Granted as the link itself (an importer with `importsUnresolvedAliases`).
    var isSymlink: Bool
    var readOnly: Bool
    /// The bookmark it came from (revoking the bookmark revokes it); nil for a dialog's grant.
    var bookmarkId: Int64?
    var created: Double
    /// The latest time it was given, by a dialog or a resolved bookmark, and what that gave: a
    /// revocation another process recorded before it was of an earlier consent, and leaves this
    /// one (``SessionState/renewAfterRevocation(_:)``).
    var latestGift = Gift(time: 0, readOnly: true, bookmarkId: nil)

    struct Gift {
        var time: Double
        var readOnly: Bool
        var bookmarkId: Int64?
    }
}

/// One started access.
struct LeaseState {
    var accessId: String
    var client: ClientID
    /// The grant it was started through; nil once that grant is revoked.
    var grantId: Int?
    var path: FilePath
    /// The granted directory the file is reached through, or nil for a file granted itself.
    var anchor: FilePath?
    var fingerprint: Fingerprint
    /// The fingerprint of what the grant covers (the directory `anchor` names, for a lease
    /// inside one), for opening the file again safely.
    var grantFingerprint: Fingerprint
    var isDirectory: Bool
    var isSymlink: Bool
    var readOnly: Bool
    var created: Double
    /// Written to the store (so that `wharf access list` counts it).
    var written = false
}

/// The ids a client has released, newest kept: a bounded memory (the oldest are forgotten past
/// `capacity`), so a long session cannot grow it without end. A forgotten id released again is
/// reported as unknown rather than as released twice — still an error, just a vaguer one.
struct ReleasedAccessIds {
    static let capacity = 4096
    private var ids: Set<String> = []
    private var order: [String] = []
    private var start = 0

    mutating func insert(_ id: String) {
        guard ids.insert(id).inserted else { return }
        order.append(id)
        if ids.count > Self.capacity {
            ids.remove(order[start])
            start += 1
            if start > Self.capacity {
                order.removeFirst(start)
                start = 0
            }
        }
    }

    func contains(_ id: String) -> Bool { ids.contains(id) }
}
