import WharfJSON

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
        readOnly = try reader.bool("readOnly")
        isDirectory = try reader.bool("isDirectory")
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
