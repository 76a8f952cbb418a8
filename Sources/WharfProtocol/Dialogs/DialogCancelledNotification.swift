import WharfJSON

/// `dialog/cancelled`: ended without a result (`user`, `client`, `timeout`, `disconnected`).
public struct DialogCancelledNotification: NotificationMessage {
    public static let method = "dialog/cancelled"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var kind: String
    public var reason: String

    public init(dialogId: String, kind: String, reason: String) {
        self.dialogId = dialogId
        self.kind = kind
        self.reason = reason
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        kind = try reader.string("kind")
        reason = try reader.string("reason")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "kind": .string(kind), "reason": .string(reason)] }
    public static var example: DialogCancelledNotification { DialogCancelledNotification(dialogId: "dlg-1", kind: "importer", reason: "user") }
}
