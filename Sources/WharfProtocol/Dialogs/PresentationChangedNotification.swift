import WharfJSON

/// `dialog/presentationChanged`: the dialog is no longer presented (always just before its ending).
public struct PresentationChangedNotification: NotificationMessage {
    public static let method = "dialog/presentationChanged"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var isPresented: Bool

    public init(dialogId: String, isPresented: Bool) {
        self.dialogId = dialogId
        self.isPresented = isPresented
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        isPresented = try reader.bool("isPresented")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "isPresented": .bool(isPresented)] }
    public static var example: PresentationChangedNotification { PresentationChangedNotification(dialogId: "dlg-1", isPresented: false) }
}
