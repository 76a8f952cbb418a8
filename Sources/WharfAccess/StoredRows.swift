import WharfSystem

/// SQLite integers are signed 64-bit; identities are unsigned. They are stored by bit pattern.
extension SQLiteValue {
    static func unsigned(_ value: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: value)) }
    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
    static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    static func optional(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }

    /// The four columns `device, inode, file_system, birth`.
    static func fingerprint(_ fingerprint: Fingerprint) -> [SQLiteValue] {
        [.unsigned(fingerprint.identity.device), .unsigned(fingerprint.identity.inode),
         .unsigned(fingerprint.identity.fileSystem), .optional(fingerprint.birth)]
    }
}

extension SQLiteRow {
    /// Four consecutive columns `device, inode, file_system, birth` starting at `column`.
    func fingerprint(at column: Int32) -> Fingerprint {
        Fingerprint(identity: FileIdentity(device: UInt64(bitPattern: int(column)),
                                           inode: UInt64(bitPattern: int(column + 1)),
                                           fileSystem: UInt64(bitPattern: int(column + 2))),
                    birth: optionalInt(column + 3))
    }

    func bool(_ column: Int32) -> Bool { int(column) != 0 }
}

/// A grant as stored: what one session may reach.
struct GrantRow {
    static let columns = "id, app, path, device, inode, file_system, birth, is_directory, read_only, bookmark_id"

    var id: Int64
    var app: String
    var path: String
    var fingerprint: Fingerprint
    var isDirectory: Bool
    var readOnly: Bool
    var bookmarkId: Int64?

    init(_ row: SQLiteRow) {
        id = row.int(0)
        app = row.text(1)
        path = row.text(2)
        fingerprint = row.fingerprint(at: 3)
        isDirectory = row.bool(7)
        readOnly = row.bool(8)
        bookmarkId = row.optionalInt(9)
    }
}

/// A bookmark as stored: an app identity's lasting claim on one file.
struct BookmarkRow {
    static let columns = "id, app, path, device, inode, file_system, birth, is_directory, read_only"

    var id: Int64
    var app: String
    var path: String
    var fingerprint: Fingerprint
    var isDirectory: Bool
    var readOnly: Bool

    init(_ row: SQLiteRow) {
        id = row.int(0)
        app = row.text(1)
        path = row.text(2)
        fingerprint = row.fingerprint(at: 3)
        isDirectory = row.bool(7)
        readOnly = row.bool(8)
    }
}

/// A lease with what is needed to open its file again safely: its own fingerprint and, through
/// its grant, the fingerprint of the directory it is anchored in. `grant` is nil once revoked.
struct LeaseRow {
    static let select = """
        SELECT l.path, l.anchor, l.device, l.inode, l.file_system, l.birth, l.is_directory, l.read_only,
               g.id, g.device, g.inode, g.file_system, g.birth
        FROM leases l LEFT JOIN grants g ON g.id = l.grant_id
        WHERE l.access_id = ? AND l.instance = ? AND l.client = ?
        """

    var path: String
    var anchor: String?
    var fingerprint: Fingerprint
    var isDirectory: Bool
    var readOnly: Bool
    /// The fingerprint of what the lease's grant covers (the directory `anchor` names, for a
    /// lease inside one); nil when the grant was revoked.
    var grant: Fingerprint?

    init(_ row: SQLiteRow) {
        path = row.text(0)
        anchor = row.optionalText(1)
        fingerprint = row.fingerprint(at: 2)
        isDirectory = row.bool(6)
        readOnly = row.bool(7)
        grant = row.isNull(8) ? nil : row.fingerprint(at: 9)
    }
}
