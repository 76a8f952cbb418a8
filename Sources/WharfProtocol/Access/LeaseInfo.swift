import WharfJSON

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
        readOnly = try reader.bool("readOnly")
        isStale = try reader.bool("isStale")
        bookmark = try reader.nullableString("bookmark")
        isDirectory = try reader.bool("isDirectory")
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
