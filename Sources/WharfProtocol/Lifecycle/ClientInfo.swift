import WharfJSON

/// `initialize`'s `clientInfo`: `name` is the client's app identity over standard I/O.
public struct ClientInfo: ProtocolValue {
    public var name: String
    public var version: String?

    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        name = try reader.identifier("name")
        // The name is whose grants and bookmarks these are: an empty one would be taken for no
        // name at all and share them with every client that gives none.
        guard !name.isEmpty else {
            throw ProtocolError("\(reader.name("name")): must not be empty: it names the client's app identity, which its grants and "
                                + "bookmarks belong to (leave clientInfo out to have none)")
        }
        version = try reader.optionalString("version")
    }

    public var json: JSON {
        var object: JSONObject = ["name": .string(name)]
        object.set("version", version)
        return .object(object)
    }

    public static var example: ClientInfo { ClientInfo(name: "my-editor", version: "1.2") }
}
