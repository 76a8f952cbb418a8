import WharfJSON

/// What one file is (`contentTypes/identify`).
public struct IdentificationInfo: ProtocolValue {
    /// The path or URL as the client gave it.
    public var path: String
    public var identifier: String
    public var mimeType: String
    /// `extension`, `magic`, `fallback` or `fileSystem`.
    public var source: String

    public init(path: String, identifier: String, mimeType: String, source: String) {
        self.path = path
        self.identifier = identifier
        self.mimeType = mimeType
        self.source = source
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        path = try reader.string("path")
        identifier = try reader.string("identifier")
        mimeType = try reader.string("mimeType")
        source = try reader.string("source")
    }

    public var json: JSON {
        ["path": .string(path), "identifier": .string(identifier), "mimeType": .string(mimeType), "source": .string(source)]
    }

    public static var example: IdentificationInfo {
        IdentificationInfo(path: "/home/me/a.png", identifier: "public.png", mimeType: "image/png", source: "extension")
    }
}
