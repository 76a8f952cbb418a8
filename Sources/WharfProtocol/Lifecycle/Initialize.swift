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

/// What a connection is to the daemon: a client (an app asking for dialogs), or the presenter
/// that shows the dialogs of every client that does not show its own.
public enum ClientRole: String, Sendable {
    case client, presenter
}

/// Who a client is, as the server takes it: `initialize`'s result says it to the client, and
/// `presenter/show` to a presenter connection, so that it can say whose dialog it shows.
public struct ClientIdentityInfo: ProtocolValue {
    /// The app, verified from the peer over the daemon's socket (`flatpak:ID`, `snap:NAME`,
    /// `exe:PATH`); null over standard I/O, where the app is the name it declares.
    public var app: String?
    /// `clientInfo.name`: over the daemon, a name within the app.
    public var name: String
    /// The client's process, when the server knows it (the peer of the socket, or the process
    /// that started a `wharf --connect` bridge).
    public var pid: Int64?

    public init(app: String?, name: String, pid: Int64?) {
        self.app = app
        self.name = name
        self.pid = pid
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        app = try reader.optionalString("app")
        name = try reader.identifier("name")
        pid = try reader.optionalInt("pid")
    }

    public var json: JSON { ["app": nullable(app), "name": .string(name), "pid": pid.map(JSON.int) ?? .null] }

    public static var example: ClientIdentityInfo { ClientIdentityInfo(app: "exe:/usr/bin/nvim", name: "nvim", pid: 4242) }
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
        _ = try reader.optionalBool("mover")
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
            "mover": true,
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
