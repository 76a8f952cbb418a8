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

    public init(processId: Int64? = nil, clientInfo: ClientInfo? = nil, capabilities: ClientCapabilities = ClientCapabilities(),
                trace: TraceLevel? = nil) {
        self.processId = processId
        self.clientInfo = clientInfo
        self.capabilities = capabilities
        self.trace = trace
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
    }

    public var json: JSON {
        var object = JSONObject()
        object.set("processId", processId)
        object.set("clientInfo", clientInfo)
        object["capabilities"] = capabilities.json
        object.set("trace", trace?.rawValue)
        return .object(object)
    }

    public static var example: InitializeRequest {
        InitializeRequest(processId: 4242, clientInfo: ClientInfo(name: "my-editor", version: "1.2"),
                          capabilities: ClientCapabilities(presentsDialogs: true, prefersDesktopDialogs: true), trace: .off)
    }
}

/// `initialize`'s `clientInfo`: `name` is the client's app identity over standard I/O.
public struct ClientInfo: ProtocolValue {
    public var name: String
    public var version: String?

    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        name = try reader.string("name")
        version = try reader.optionalString("version")
    }

    public var json: JSON {
        var object: JSONObject = ["name": .string(name)]
        object.set("version", version)
        return .object(object)
    }

    public static var example: ClientInfo { ClientInfo(name: "my-editor", version: "1.2") }
}

/// What the client can do.
public struct ClientCapabilities: ProtocolValue {
    /// The client draws dialogs itself: it gets `presenter/show` and answers with `dialog/…`.
    public var presentsDialogs: Bool
    /// With `presentsDialogs`: the desktop's own dialogs are used when one is usable, the
    /// client's only when none is.
    public var prefersDesktopDialogs: Bool

    public init(presentsDialogs: Bool = false, prefersDesktopDialogs: Bool = false) {
        self.presentsDialogs = presentsDialogs
        self.prefersDesktopDialogs = prefersDesktopDialogs
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        presentsDialogs = try reader.bool("presentsDialogs", default: false)
        prefersDesktopDialogs = try reader.bool("prefersDesktopDialogs", default: false)
    }

    public var json: JSON {
        ["presentsDialogs": .bool(presentsDialogs), "prefersDesktopDialogs": .bool(prefersDesktopDialogs)]
    }

    public static var example: ClientCapabilities { ClientCapabilities(presentsDialogs: true) }
}

/// `$/setTrace` levels, as in the LSP.
public enum TraceLevel: String, Sendable {
    case off, messages, verbose
}

/// The server's answer to `initialize`.
public struct InitializeResult: ProtocolValue {
    public var serverName: String
    public var serverVersion: String
    public var protocolVersion: String
    public var capabilities: ServerCapabilities

    public init(serverName: String, serverVersion: String, protocolVersion: String, capabilities: ServerCapabilities) {
        self.serverName = serverName
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.capabilities = capabilities
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        (serverName, serverVersion) = try reader.object("serverInfo") { reader throws(ProtocolError) in
            (try reader.string("name"), try reader.string("version"))
        }
        protocolVersion = try reader.string("protocolVersion")
        capabilities = try reader.object("capabilities") { reader throws(ProtocolError) in try ServerCapabilities(reading: &reader) }
    }

    public var json: JSON {
        [
            "serverInfo": ["name": .string(serverName), "version": .string(serverVersion)],
            "protocolVersion": .string(protocolVersion),
            "capabilities": capabilities.json,
        ]
    }

    public static var example: InitializeResult {
        InitializeResult(serverName: "wharf", serverVersion: "0.1.0", protocolVersion: "0.1", capabilities: .example)
    }
}

/// What the server can do, and who will show this client's dialogs.
public struct ServerCapabilities: ProtocolValue {
    public var framings: [String]
    public var maxTransferBytes: Int64
    /// Every presenter usable for this client (`frontend`, `script`, `portal`, `zenity`, `kdialog`).
    public var presenters: [String]
    /// The one this client's dialogs get; nil when none is usable (`present…` then answers
    /// `noPresenter`).
    public var presenter: String?
    /// For each presenter that is not usable, why not.
    public var unavailablePresenters: [String: String]
    public var maxDialogsPerClient: Int64

    public init(framings: [String], maxTransferBytes: Int64, presenters: [String], presenter: String?,
                unavailablePresenters: [String: String], maxDialogsPerClient: Int64) {
        self.framings = framings
        self.maxTransferBytes = maxTransferBytes
        self.presenters = presenters
        self.presenter = presenter
        self.unavailablePresenters = unavailablePresenters
        self.maxDialogsPerClient = maxDialogsPerClient
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        _ = try reader.optionalBool("ping")
        framings = try reader.strings("framings")
        _ = try reader.optionalBool("contentTypes")
        _ = try reader.optionalBool("importer")
        _ = try reader.optionalBool("exporter")
        maxTransferBytes = try reader.object("access") { reader throws(ProtocolError) in
            _ = try reader.optionalBool("bookmarks")
            _ = try reader.optionalBool("fileIO")
            return try reader.int("maxTransferBytes")
        }
        presenters = try reader.strings("presenters")
        presenter = try reader.optionalString("presenter")
        unavailablePresenters = try reader.optionalObject("unavailablePresenters") { reader throws(ProtocolError) in
            var reasons: [String: String] = [:]
            for key in reader.object.keys { reasons[key] = try reader.string(key) }
            return reasons
        } ?? [:]
        maxDialogsPerClient = try reader.int("maxDialogsPerClient")
    }

    public var json: JSON {
        var object: JSONObject = [
            "ping": true,
            "framings": .array(framings.map(JSON.string)),
            "contentTypes": true,
            "importer": true,
            "exporter": true,
            "access": ["bookmarks": true, "fileIO": true, "maxTransferBytes": .int(maxTransferBytes)],
            "presenters": .array(presenters.map(JSON.string)),
            "presenter": nullable(presenter),
        ]
        if !unavailablePresenters.isEmpty {
            object["unavailablePresenters"] = .object(JSONObject(unavailablePresenters.sorted { $0.key < $1.key }
                .map { (key: $0.key, value: JSON.string($0.value)) }))
        }
        object["maxDialogsPerClient"] = .int(maxDialogsPerClient)
        return .object(object)
    }

    public static var example: ServerCapabilities {
        ServerCapabilities(framings: ["lsp", "ndjson"], maxTransferBytes: 16_777_216, presenters: ["frontend", "zenity"],
                           presenter: "frontend", unavailablePresenters: ["portal": "no session bus"], maxDialogsPerClient: 64)
    }
}
