import WharfJSON

/// `initialize`: who the client is and what it can do; the server answers what it can do.
public struct InitializeRequest: RequestMessage {
    public static let method = "initialize"
    public typealias Result = InitializeResult

    /// The client's process; the server ends when it dies.
    public var processId: Int64?
    public var clientInfo: ClientInfo?
    public var capabilities: ClientCapabilities
    public var trace: TraceLevel?
    /// `presenter`: this connection presents the dialogs of every client of the daemon that
    /// does not present its own.
    public var role: ClientRole

    public init(processId: Int64? = nil, clientInfo: ClientInfo? = nil, capabilities: ClientCapabilities = ClientCapabilities(),
                trace: TraceLevel? = nil, role: ClientRole = .client) {
        self.processId = processId
        self.clientInfo = clientInfo
        self.capabilities = capabilities
        self.trace = trace
        self.role = role
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        processId = try reader.optionalInt("processId", in: 1...Int64(Int32.max))
        clientInfo = try reader.optionalObject("clientInfo") { reader throws(ProtocolError) in try ClientInfo(reading: &reader) }
        capabilities = try reader.optionalObject("capabilities") { reader throws(ProtocolError) in
            try ClientCapabilities(reading: &reader)
        } ?? ClientCapabilities()
        trace = try reader.optionalString("trace").map { value throws(ProtocolError) -> TraceLevel in
            guard let level = TraceLevel(rawValue: value) else {
                throw ProtocolError("trace: expected \"off\", \"messages\" or \"verbose\", got \"\(value)\"")
            }
            return level
        }
        role = try reader.optionalString("role").map { value throws(ProtocolError) -> ClientRole in
            guard let role = ClientRole(rawValue: value) else {
                throw ProtocolError("role: expected \"client\" or \"presenter\", got \"\(value)\"")
            }
            return role
        } ?? .client
    }

    public var json: JSON {
        var object = JSONObject()
        object.set("processId", processId)
        object.set("clientInfo", clientInfo)
        object["capabilities"] = capabilities.json
        object.set("trace", trace?.rawValue)
        if role != .client { object["role"] = .string(role.rawValue) }
        return .object(object)
    }

    public static var example: InitializeRequest {
        InitializeRequest(processId: 4242, clientInfo: ClientInfo(name: "my-editor", version: "1.2"),
                          capabilities: ClientCapabilities(presentsDialogs: true, prefersDesktopDialogs: true), trace: .off,
                          role: .presenter)
    }
}
