import WharfJSON

/// The answer to `presentImporter` and `presentExporter`.
public struct PresentResult: ProtocolValue {
    public var dialogId: String
    public init(dialogId: String) { self.dialogId = dialogId }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { dialogId = try reader.string("dialogId") }
    public var json: JSON { ["dialogId": .string(dialogId)] }
    public static var example: PresentResult { PresentResult(dialogId: "dlg-1") }
}
