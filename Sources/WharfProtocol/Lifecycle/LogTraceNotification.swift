import WharfJSON

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
