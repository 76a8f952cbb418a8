import WharfSystem

/// SQLite integers are signed 64-bit; identities are unsigned. They are stored by bit pattern.
extension SQLiteValue {
    static func unsigned(_ value: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: value)) }
    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
    static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    static func optional(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }

    static func identity(_ identity: FileIdentity) -> [SQLiteValue] {
        [.unsigned(identity.device), .unsigned(identity.inode), .unsigned(identity.fileSystem)]
    }
}

extension SQLiteRow {
    /// Three consecutive columns `device, inode, file_system` starting at `column`.
    func identity(at column: Int32) -> FileIdentity {
        FileIdentity(device: UInt64(bitPattern: int(column)), inode: UInt64(bitPattern: int(column + 1)),
                     fileSystem: UInt64(bitPattern: int(column + 2)))
    }

    func bool(_ column: Int32) -> Bool { int(column) != 0 }
}

/// A grant as stored: what one session may reach.
struct GrantRow {
    static let columns = "id, app, path, device, inode, file_system, is_directory, read_only, bookmark_id"

    var id: Int64
    var app: String
    var path: String
    var identity: FileIdentity
    var isDirectory: Bool
    var readOnly: Bool
    var bookmarkId: Int64?

    init(_ row: SQLiteRow) {
        id = row.int(0)
        app = row.text(1)
        path = row.text(2)
        identity = row.identity(at: 3)
        isDirectory = row.bool(6)
        readOnly = row.bool(7)
        bookmarkId = row.optionalInt(8)
    }
}

/// A bookmark as stored: an app identity's lasting claim on one file.
struct BookmarkRow {
    static let columns = "id, app, path, device, inode, file_system, is_directory, read_only"

    var id: Int64
    var app: String
    var path: String
    var identity: FileIdentity
    var isDirectory: Bool
    var readOnly: Bool

    init(_ row: SQLiteRow) {
        id = row.int(0)
        app = row.text(1)
        path = row.text(2)
        identity = row.identity(at: 3)
        isDirectory = row.bool(6)
        readOnly = row.bool(7)
    }
}

/// A lease with what is needed to open its file again safely: its own identity and, through
/// its grant, the identity of the directory it is anchored in. `grant` is nil once revoked.
struct LeaseRow {
    static let select = """
        SELECT l.path, l.anchor, l.device, l.inode, l.file_system, l.is_directory, l.read_only,
               g.id, g.device, g.inode, g.file_system
        FROM leases l LEFT JOIN grants g ON g.id = l.grant_id
        WHERE l.access_id = ? AND l.instance = ? AND l.client = ?
        """

    var path: String
    var anchor: String?
    var identity: FileIdentity
    var isDirectory: Bool
    var readOnly: Bool
    /// The identity of the granted directory `anchor` names; nil when revoked.
    var grantIdentity: FileIdentity?

    init(_ row: SQLiteRow) {
        path = row.text(0)
        anchor = row.optionalText(1)
        identity = row.identity(at: 2)
        isDirectory = row.bool(5)
        readOnly = row.bool(6)
        grantIdentity = row.isNull(7) ? nil : row.identity(at: 8)
    }
}
