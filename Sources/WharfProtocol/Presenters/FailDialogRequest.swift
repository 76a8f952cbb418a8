import WharfJSON

/// `dialog/fail` (presenter): it cannot show or finish the dialog.
public struct FailDialogRequest: RequestMessage {
    public static let method = "dialog/fail"
    public typealias Result = Empty
    public var dialogId: String
    public var message: String

    public init(dialogId: String, message: String) {
        self.dialogId = dialogId
        self.message = message
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        message = try reader.string("message")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "message": .string(message)] }
    public static var example: FailDialogRequest { FailDialogRequest(dialogId: "dlg-1", message: "the picker crashed") }
}
