import WharfJSON

/// One entry of a listing.
public struct DirectoryEntryInfo: ProtocolValue {
    /// For display; may be lossy for a name that is not UTF-8. `url` never is.
    public var name: String
    public var url: String
    public var isDirectory: Bool
    public var isPackage: Bool
    public var isHidden: Bool
    public var isSymlink: Bool
    public var contentType: String
    public var size: Int64
    /// ISO 8601.
    public var modified: String
    public var enabled: Bool
    /// Why `enabled` is false, as a rejected `dialog/choose` would say it; absent when enabled.
    public var disabledReason: String?

    public init(name: String, url: String, isDirectory: Bool, isPackage: Bool, isHidden: Bool, isSymlink: Bool,
                contentType: String, size: Int64, modified: String, enabled: Bool, disabledReason: String? = nil) {
        self.name = name
        self.url = url
        self.isDirectory = isDirectory
        self.isPackage = isPackage
        self.isHidden = isHidden
        self.isSymlink = isSymlink
        self.contentType = contentType
        self.size = size
        self.modified = modified
        self.enabled = enabled
        self.disabledReason = disabledReason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        name = try reader.string("name")
        url = try reader.string("url")
        isDirectory = try reader.bool("isDirectory")
        isPackage = try reader.bool("isPackage")
        isHidden = try reader.bool("isHidden")
        isSymlink = try reader.bool("isSymlink")
        contentType = try reader.string("contentType")
        size = try reader.int("size")
        modified = try reader.string("modified")
        enabled = try reader.bool("enabled")
        disabledReason = try reader.optionalString("disabledReason")
    }

    public var json: JSON {
        var object: JSONObject = [
            "name": .string(name), "url": .string(url), "isDirectory": .bool(isDirectory), "isPackage": .bool(isPackage),
            "isHidden": .bool(isHidden), "isSymlink": .bool(isSymlink), "contentType": .string(contentType),
            "size": .int(size), "modified": .string(modified), "enabled": .bool(enabled),
        ]
        object.set("disabledReason", disabledReason)
        return .object(object)
    }

    public static var example: DirectoryEntryInfo {
        DirectoryEntryInfo(name: "a.png", url: "file:///home/me/a.png", isDirectory: false, isPackage: false, isHidden: false,
                           isSymlink: false, contentType: "public.png", size: 1024, modified: "2026-11-30T10:00:00Z",
                           enabled: false, disabledReason: "it is of type public.png, and this dialog takes only public.plain-text")
    }
}
