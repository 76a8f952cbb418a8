import WharfJSON

/// `resolveAccess`: start access to a granted URL or a bookmark (a lease to release once).
public struct ResolveAccessRequest: RequestMessage {
    public static let method = "resolveAccess"
    public typealias Result = LeaseInfo
    public var target: AccessTarget

    public init(target: AccessTarget) { self.target = target }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { target = try AccessTarget(reading: &reader, method: Self.method) }
    public var json: JSON { target.json }
    public static var example: ResolveAccessRequest { ResolveAccessRequest(target: .url("file:///home/me/a.png")) }
}

/// A URL (or path) the client holds a grant for, or a bookmark of its app.
public enum AccessTarget: Sendable, Equatable {
    case url(String)
    case bookmark(String)

    init(reading reader: inout FieldReader, method: String) throws(ProtocolError) {
        switch try reader.oneOf(["url", "bookmark"], what: method) {
        case "url": self = .url(try reader.string("url"))
        default: self = .bookmark(try reader.string("bookmark"))
        }
    }

    var json: JSON {
        switch self {
        case .url(let url): ["url": .string(url)]
        case .bookmark(let token): ["bookmark": .string(token)]
        }
    }
}

/// A started access.
public struct LeaseInfo: ProtocolValue {
    public var accessId: String
    public var url: String
    /// For display; `url` is exact.
    public var path: String
    public var readOnly: Bool
    public var isStale: Bool
    public var bookmark: String?
    public var isDirectory: Bool

    public init(accessId: String, url: String, path: String, readOnly: Bool, isStale: Bool, bookmark: String?, isDirectory: Bool) {
        self.accessId = accessId
        self.url = url
        self.path = path
        self.readOnly = readOnly
        self.isStale = isStale
        self.bookmark = bookmark
        self.isDirectory = isDirectory
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        accessId = try reader.string("accessId")
        url = try reader.string("url")
        path = try reader.string("path")
        readOnly = try reader.bool("readOnly", default: true)
        isStale = try reader.bool("isStale", default: false)
        bookmark = try reader.optionalString("bookmark")
        isDirectory = try reader.bool("isDirectory", default: false)
    }

    public var json: JSON {
        ["accessId": .string(accessId), "url": .string(url), "path": .string(path), "readOnly": .bool(readOnly),
         "isStale": .bool(isStale), "bookmark": nullable(bookmark), "isDirectory": .bool(isDirectory)]
    }

    public static var example: LeaseInfo {
        LeaseInfo(accessId: "acc_abc", url: "file:///home/me/a.png", path: "/home/me/a.png", readOnly: true, isStale: false,
                  bookmark: nil, isDirectory: false)
    }
}

/// `releaseAccess`: end one lease.
public struct ReleaseAccessRequest: RequestMessage {
    public static let method = "releaseAccess"
    public typealias Result = Empty
    public var accessId: String
    public init(accessId: String) { self.accessId = accessId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { accessId = try reader.string("accessId") }
    public var json: JSON { ["accessId": .string(accessId)] }
    public static var example: ReleaseAccessRequest { ReleaseAccessRequest(accessId: "acc_abc") }
}

/// `createBookmark`: access that outlives the session, for the app.
public struct CreateBookmarkRequest: RequestMessage {
    public static let method = "createBookmark"
    public typealias Result = BookmarkResult
    public var url: String
    public init(url: String) { self.url = url }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { url = try reader.string("url") }
    public var json: JSON { ["url": .string(url)] }
    public static var example: CreateBookmarkRequest { CreateBookmarkRequest(url: "file:///home/me/a.png") }
}

public struct BookmarkResult: ProtocolValue {
    public var bookmark: String
    public init(bookmark: String) { self.bookmark = bookmark }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { bookmark = try reader.string("bookmark") }
    public var json: JSON { ["bookmark": .string(bookmark)] }
    public static var example: BookmarkResult { BookmarkResult(bookmark: "wb1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") }
}

/// `listAccess`: this session's grants and this app's bookmarks.
public struct ListAccessRequest: RequestMessage {
    public static let method = "listAccess"
    public typealias Result = ListAccessResult
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ListAccessRequest { ListAccessRequest() }
}

public struct ListAccessResult: ProtocolValue {
    public var entries: [AccessEntryInfo]
    public var activeLeases: Int64

    public init(entries: [AccessEntryInfo], activeLeases: Int64) {
        self.entries = entries
        self.activeLeases = activeLeases
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        entries = try reader.objects("entries") { reader throws(ProtocolError) in try AccessEntryInfo(reading: &reader) }
        activeLeases = try reader.int("activeLeases")
    }

    public var json: JSON { ["entries": .array(entries.map(\.json)), "activeLeases": .int(activeLeases)] }
    public static var example: ListAccessResult { ListAccessResult(entries: [.example], activeLeases: 1) }
}

/// A grant or a bookmark.
public struct AccessEntryInfo: ProtocolValue {
    public var id: String
    /// `grant` or `bookmark`.
    public var kind: String
    public var url: String
    public var path: String
    public var readOnly: Bool
    public var isDirectory: Bool
    public var activeLeases: Int64
    /// ISO 8601.
    public var created: String
    /// The bookmark string, in the owning app's own listing.
    public var bookmark: String?

    public init(id: String, kind: String, url: String, path: String, readOnly: Bool, isDirectory: Bool, activeLeases: Int64,
                created: String, bookmark: String?) {
        self.id = id
        self.kind = kind
        self.url = url
        self.path = path
        self.readOnly = readOnly
        self.isDirectory = isDirectory
        self.activeLeases = activeLeases
        self.created = created
        self.bookmark = bookmark
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        id = try reader.string("id")
        kind = try reader.string("kind")
        url = try reader.string("url")
        path = try reader.string("path")
        readOnly = try reader.bool("readOnly", default: true)
        isDirectory = try reader.bool("isDirectory", default: false)
        activeLeases = try reader.int("activeLeases")
        created = try reader.string("created")
        bookmark = try reader.optionalString("bookmark")
    }

    public var json: JSON {
        var object: JSONObject = ["id": .string(id), "kind": .string(kind), "url": .string(url), "path": .string(path),
                                  "readOnly": .bool(readOnly), "isDirectory": .bool(isDirectory),
                                  "activeLeases": .int(activeLeases), "created": .string(created)]
        object.set("bookmark", bookmark)
        return .object(object)
    }

    public static var example: AccessEntryInfo {
        AccessEntryInfo(id: "g3", kind: "grant", url: "file:///home/me/a.png", path: "/home/me/a.png", readOnly: true,
                        isDirectory: false, activeLeases: 1, created: "2026-11-30T10:00:00Z", bookmark: nil)
    }
}

/// `revokeAccess`: the app's grants for a URL, or one bookmark, go.
public struct RevokeAccessRequest: RequestMessage {
    public static let method = "revokeAccess"
    public typealias Result = RevokeAccessResult
    public var target: AccessTarget

    public init(target: AccessTarget) { self.target = target }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { target = try AccessTarget(reading: &reader, method: Self.method) }
    public var json: JSON { target.json }
    public static var example: RevokeAccessRequest { RevokeAccessRequest(target: .bookmark("wb1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")) }
}

public struct RevokeAccessResult: ProtocolValue {
    public var revoked: Int64
    public init(revoked: Int64) { self.revoked = revoked }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { revoked = try reader.int("revoked") }
    public var json: JSON { ["revoked": .int(revoked)] }
    public static var example: RevokeAccessResult { RevokeAccessResult(revoked: 1) }
}

/// `readFile`: bytes through a lease.
public struct ReadFileRequest: RequestMessage {
    public static let method = "readFile"
    public typealias Result = ReadFileResult
    public var accessId: String
    public var offset: Int64
    public var length: Int64?

    /// The most one call moves (the server's `capabilities.access.maxTransferBytes`).
    public static let maximumLength: Int64 = 16 << 20

    public init(accessId: String, offset: Int64 = 0, length: Int64? = nil) {
        self.accessId = accessId
        self.offset = offset
        self.length = length
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        accessId = try reader.string("accessId")
        offset = try reader.optionalInt("offset", in: 0...Int64.max) ?? 0
        length = try reader.optionalInt("length", in: 0...Self.maximumLength)
    }

    public var json: JSON {
        var object: JSONObject = ["accessId": .string(accessId), "offset": .int(offset)]
        object.set("length", length)
        return .object(object)
    }

    public static var example: ReadFileRequest { ReadFileRequest(accessId: "acc_abc", offset: 0, length: 4096) }
}

public struct ReadFileResult: ProtocolValue {
    public var base64: String
    public var eof: Bool
    public init(base64: String, eof: Bool) {
        self.base64 = base64
        self.eof = eof
    }
    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        base64 = try reader.string("base64")
        eof = try reader.bool("eof", default: false)
    }
    public var json: JSON { ["base64": .string(base64), "eof": .bool(eof)] }
    public static var example: ReadFileResult { ReadFileResult(base64: "aGVsbG8=", eof: true) }
}

/// `writeFile`: bytes through a read-write lease.
public struct WriteFileRequest: RequestMessage {
    public static let method = "writeFile"
    public typealias Result = WriteFileResult
    public var accessId: String
    public var base64: String
    public var offset: Int64
    public var truncate: Bool

    public init(accessId: String, base64: String, offset: Int64 = 0, truncate: Bool = false) {
        self.accessId = accessId
        self.base64 = base64
        self.offset = offset
        self.truncate = truncate
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        accessId = try reader.string("accessId")
        base64 = try reader.string("base64")
        offset = try reader.optionalInt("offset", in: 0...Int64.max) ?? 0
        truncate = try reader.bool("truncate", default: false)
    }

    public var json: JSON {
        ["accessId": .string(accessId), "base64": .string(base64), "offset": .int(offset), "truncate": .bool(truncate)]
    }

    public static var example: WriteFileRequest { WriteFileRequest(accessId: "acc_abc", base64: "aGVsbG8=", truncate: true) }
}

public struct WriteFileResult: ProtocolValue {
    public var bytesWritten: Int64
    public init(bytesWritten: Int64) { self.bytesWritten = bytesWritten }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { bytesWritten = try reader.int("bytesWritten") }
    public var json: JSON { ["bytesWritten": .int(bytesWritten)] }
    public static var example: WriteFileResult { WriteFileResult(bytesWritten: 5) }
}
