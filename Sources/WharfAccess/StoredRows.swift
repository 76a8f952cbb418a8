import WharfSystem

/// SQLite integers are signed 64-bit; identities are unsigned. They are stored by bit pattern.
extension SQLiteValue {
    static func unsigned(_ value: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: value)) }
    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
    static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    static func optional(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    /// A path, as its exact bytes.
    static func path(_ path: FilePath) -> SQLiteValue { .blob(path.bytes) }
    static func optional(_ path: FilePath?) -> SQLiteValue { path.map { .blob($0.bytes) } ?? .null }

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

    /// A path column (a blob; a row written before paths were bytes holds text, read the same).
    func path(_ column: Int32) -> FilePath {
        FilePath(bytes: blob(column)) ?? .root
    }
}

/// A bookmark as stored: an app identity's lasting claim on one file.
struct BookmarkRow {
    static let columns = "id, app, path, device, inode, file_system, birth, is_directory, read_only"

    var id: Int64
    var app: String
    var path: FilePath
    var fingerprint: Fingerprint
    var isDirectory: Bool
    var readOnly: Bool

    init(_ row: SQLiteRow) {
        id = row.int(0)
        app = row.text(1)
        path = row.path(2)
        fingerprint = row.fingerprint(at: 3)
        isDirectory = row.bool(7)
        readOnly = row.bool(8)
    }
}
