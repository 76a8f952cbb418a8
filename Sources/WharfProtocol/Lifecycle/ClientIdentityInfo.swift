import WharfJSON

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
        app = try reader.nullableString("app")
        name = try reader.identifier("name")
        pid = try reader.nullableInt("pid")
    }

    public var json: JSON { ["app": nullable(app), "name": .string(name), "pid": pid.map(JSON.int) ?? .null] }

    public static var example: ClientIdentityInfo { ClientIdentityInfo(app: "exe:/usr/bin/nvim", name: "nvim", pid: 4242) }
}
