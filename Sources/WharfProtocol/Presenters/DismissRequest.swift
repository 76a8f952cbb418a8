import WharfJSON

/// `dialog/dismiss` (presenter): the human dismissed the dialog.
public struct DismissRequest: RequestMessage {
    public static let method = "dialog/dismiss"
    public typealias Result = Empty
    public var dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: DismissRequest { DismissRequest(dialogId: "dlg-1") }
}
