import WharfJSON

public struct ListDirectoryResult: ProtocolValue {
    /// `file:` URLs.
    public var directory: String
    public var parent: String?
    public var entries: [DirectoryEntryInfo]
    public var nextCursor: String?
    /// Importers: whether `directory` itself may be chosen (a folder picker's choice); absent
    /// for an exporter.
    public var directoryEnabled: Bool?
    /// Why `directoryEnabled` is false, as a rejected `dialog/choose` would say it.
    public var directoryDisabledReason: String?

    public init(directory: String, parent: String?, entries: [DirectoryEntryInfo], nextCursor: String?,
                directoryEnabled: Bool? = nil, directoryDisabledReason: String? = nil) {
        self.directory = directory
        self.parent = parent
        self.entries = entries
        self.nextCursor = nextCursor
        self.directoryEnabled = directoryEnabled
        self.directoryDisabledReason = directoryDisabledReason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        directory = try reader.string("directory")
        parent = try reader.nullableString("parent")
        entries = try reader.objects("entries") { reader throws(ProtocolError) in try DirectoryEntryInfo(reading: &reader) }
        nextCursor = try reader.optionalString("nextCursor")
        directoryEnabled = try reader.optionalBool("directoryEnabled")
        directoryDisabledReason = try reader.optionalString("directoryDisabledReason")
    }

    public var json: JSON {
        var object: JSONObject = ["directory": .string(directory), "parent": nullable(parent), "entries": .array(entries.map(\.json))]
        object.set("nextCursor", nextCursor)
        object.set("directoryEnabled", directoryEnabled)
        object.set("directoryDisabledReason", directoryDisabledReason)
        return .object(object)
    }

    public static var example: ListDirectoryResult {
        ListDirectoryResult(directory: "file:///home/me", parent: "file:///home", entries: [.example], nextCursor: "7:1000",
                            directoryEnabled: false,
                            directoryDisabledReason: "it is a directory, and this dialog takes only public.plain-text")
    }
}
