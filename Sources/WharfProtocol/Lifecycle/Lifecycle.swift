import WharfJSON

/// `initialized`: accepted and ignored.
public struct InitializedNotification: NotificationMessage {
    public static let method = "initialized"
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: InitializedNotification { InitializedNotification() }
}

/// `shutdown`: from now on every request gets -32600; `exit` follows.
public struct ShutdownRequest: RequestMessage {
    public static let method = "shutdown"
    public typealias Result = Null
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ShutdownRequest { ShutdownRequest() }
}

/// `exit`: ends the session (0 after `shutdown`, 1 without).
public struct ExitNotification: NotificationMessage {
    public static let method = "exit"
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ExitNotification { ExitNotification() }
}

/// `ping`: `{}` back, at once.
public struct PingRequest: RequestMessage {
    public static let method = "ping"
    public typealias Result = Empty
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: PingRequest { PingRequest() }
}

/// `$/setTrace`.
public struct SetTraceNotification: NotificationMessage {
    public static let method = "$/setTrace"
    public var value: TraceLevel

    public init(value: TraceLevel) { self.value = value }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        let text = try reader.string("value")
        guard let level = TraceLevel(rawValue: text) else {
            throw ProtocolError("value: expected \"off\", \"messages\" or \"verbose\", got \"\(text)\"")
        }
        value = level
    }

    public var json: JSON { ["value": .string(value.rawValue)] }
    public static var example: SetTraceNotification { SetTraceNotification(value: .messages) }
}

/// `$/logTrace` (server → client): the server's report of its own traffic.
public struct LogTraceNotification: NotificationMessage {
    public static let method = "$/logTrace"
    public static var direction: Direction { .serverToClient }
    public var message: String
    public var verbose: String?

    public init(message: String, verbose: String? = nil) {
        self.message = message
        self.verbose = verbose
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        message = try reader.string("message")
        verbose = try reader.optionalString("verbose")
    }

    public var json: JSON {
        var object: JSONObject = ["message": .string(message)]
        object.set("verbose", verbose)
        return .object(object)
    }

    public static var example: LogTraceNotification {
        LogTraceNotification(message: "Received request 'ping - (1)'.", verbose: "Params: {}")
    }
}

/// `$/cancelRequest`: answered by the transport itself; listed here so that the protocol's
/// every message has a type.
public struct CancelRequestNotification: NotificationMessage {
    public static let method = "$/cancelRequest"
    /// The id of the request to cancel, as sent (a string or an integer).
    public var id: JSON

    public init(id: JSON) { self.id = id }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        guard let id = reader.raw("id") else { throw reader.missing("id") }
        self.id = id
    }

    public var json: JSON { ["id": id] }
    public static var example: CancelRequestNotification { CancelRequestNotification(id: 7) }
}
