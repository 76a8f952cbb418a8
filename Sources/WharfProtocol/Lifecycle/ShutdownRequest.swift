import WharfJSON

/// `shutdown`: from now on every request gets -32600; `exit` follows.
public struct ShutdownRequest: RequestMessage {
    public static let method = "shutdown"
    public typealias Result = Null
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ShutdownRequest { ShutdownRequest() }
}
