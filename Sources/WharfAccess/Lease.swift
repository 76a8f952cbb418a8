import WharfSystem

/// One started access (the twin of `startAccessingSecurityScopedResource`): to be released
/// exactly once with `AccessStore.release(client:accessId:)`.
public struct Lease: Sendable, Equatable {
    /// Random and unguessable; only the client that resolved it can use or release it.
    public var accessId: String
    /// Where the file is *now*.
    public var path: FilePath
    /// The `file:` URL of ``path``, every byte kept.
    public var url: String { path.url }
    /// An importer's pick: reads only.
    public var readOnly: Bool
    /// The file was replaced or moved since it was granted or bookmarked; `path` is where it is
    /// now and a bookmark, if any, has been refreshed to point there.
    public var isStale: Bool
    /// The bookmark to keep using, when the lease came from one (refreshed in place when stale).
    public var bookmark: String?
    public var isDirectory: Bool

    public init(accessId: String, path: FilePath, readOnly: Bool, isStale: Bool,
                bookmark: String?, isDirectory: Bool) {
        self.accessId = accessId
        self.path = path
        self.readOnly = readOnly
        self.isStale = isStale
        self.bookmark = bookmark
        self.isDirectory = isDirectory
    }
}

/// One row of `listAccess` or `wharf access list`: a grant held by a session or a bookmark kept
/// for an app identity.
public struct AccessEntry: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case grant, bookmark
    }

    /// Stable while the row exists: `g<row>` for grants, `b<row>` for bookmarks. What
    /// `wharf access revoke ID` takes.
    public var id: String
    public var kind: Kind
    public var app: String
    public var path: FilePath
    public var url: String { path.url }
    public var readOnly: Bool
    public var isDirectory: Bool
    /// Leases started and not yet released through this grant (or through grants resolved from
    /// this bookmark, by any session).
    public var activeLeases: Int
    /// Seconds since the epoch.
    public var created: Double
    /// The bookmark string, only in the owning app's own listing (`list(app:client:)`).
    public var bookmark: String?
    /// Who holds a grant, for a person reading `wharf access list` (e.g. `pid 812, client 3`).
    public var holder: String?

    public init(id: String, kind: Kind, app: String, path: FilePath, readOnly: Bool,
                isDirectory: Bool, activeLeases: Int, created: Double, bookmark: String?, holder: String?) {
        self.id = id
        self.kind = kind
        self.app = app
        self.path = path
        self.readOnly = readOnly
        self.isDirectory = isDirectory
        self.activeLeases = activeLeases
        self.created = created
        self.bookmark = bookmark
        self.holder = holder
    }
}
