import WharfJSON

/// `presenter/hide` (server → frontend): the dialog ended from the app's side; take it down.
public struct PresenterHideNotification: NotificationMessage {
    public static let method = "presenter/hide"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: PresenterHideNotification { PresenterHideNotification(dialogId: "dlg-1") }
}
