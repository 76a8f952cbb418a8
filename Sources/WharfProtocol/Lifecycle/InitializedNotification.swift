import WharfJSON

/// `initialized`: accepted and ignored.
public struct InitializedNotification: NotificationMessage {
    public static let method = "initialized"
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: InitializedNotification { InitializedNotification() }
}
