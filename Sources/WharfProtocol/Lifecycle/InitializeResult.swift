import WharfJSON

/// The server's answer to `initialize`.
public struct InitializeResult: ProtocolValue {
    public var serverName: String
    public var serverVersion: String
    public var protocolVersion: String
    public var capabilities: ServerCapabilities
    /// Who the server takes the client for.
    public var client: ClientIdentityInfo?

    public init(serverName: String, serverVersion: String, protocolVersion: String, capabilities: ServerCapabilities,
                client: ClientIdentityInfo? = nil) {
        self.serverName = serverName
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.capabilities = capabilities
        self.client = client
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        (serverName, serverVersion) = try reader.object("serverInfo") { reader throws(ProtocolError) in
            (try reader.string("name"), try reader.string("version"))
        }
        protocolVersion = try reader.string("protocolVersion")
        capabilities = try reader.object("capabilities") { reader throws(ProtocolError) in try ServerCapabilities(reading: &reader) }
        client = try reader.optionalObject("client") { reader throws(ProtocolError) in try ClientIdentityInfo(reading: &reader) }
    }

    public var json: JSON {
        var object: JSONObject = [
            "serverInfo": ["name": .string(serverName), "version": .string(serverVersion)],
            "protocolVersion": .string(protocolVersion),
            "capabilities": capabilities.json,
        ]
        object.set("client", client)
        return .object(object)
    }

    public static var example: InitializeResult {
        InitializeResult(serverName: "wharf", serverVersion: "0.1.0", protocolVersion: "0.1", capabilities: .example,
                         client: .example)
    }
}
