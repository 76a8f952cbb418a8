import WharfJSON

/// `cancel`: the app's side of ending a dialog (its `isPresented = false`).
public struct CancelDialogRequest: RequestMessage {
    public static let method = "cancel"
    public typealias Result = CancelDialogResult
    public var dialogId: String

    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: CancelDialogRequest { CancelDialogRequest(dialogId: "dlg-1") }
}
