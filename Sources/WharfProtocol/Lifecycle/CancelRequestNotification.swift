import WharfJSON

/// `$/cancelRequest`: answered by the transport itself; listed here so that the protocol's
/// every message has a type.
public struct CancelRequestNotification: NotificationMessage {
    public static let method = "$/cancelRequest"
    /// The id of the request to cancel, as sent (a string or an integer).
    public var id: JSON

    public init(id: JSON) { self.id = id }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        id = try reader.value("id")
    }

    public var json: JSON { ["id": id] }
    public static var example: CancelRequestNotification { CancelRequestNotification(id: 7) }
}
