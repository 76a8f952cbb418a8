import WharfJSON

/// `ping`: `{}` back, at once.
public struct PingRequest: RequestMessage {
    public static let method = "ping"
    public typealias Result = Empty
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: PingRequest { PingRequest() }
}
