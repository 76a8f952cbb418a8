import WharfJSON

/// `exit`: ends the session (0 after `shutdown`, 1 without).
public struct ExitNotification: NotificationMessage {
    public static let method = "exit"
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ExitNotification { ExitNotification() }
}
