import WharfJSON

/// `dialog/progress`: how far a large export has come.
public struct DialogProgressNotification: NotificationMessage {
    public static let method = "dialog/progress"
    public static var direction: Direction { .serverToClient }
    public var dialogId: String
    public var bytesWritten: Int64
    public var totalBytes: Int64

    public init(dialogId: String, bytesWritten: Int64, totalBytes: Int64) {
        self.dialogId = dialogId
        self.bytesWritten = bytesWritten
        self.totalBytes = totalBytes
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        bytesWritten = try reader.int("bytesWritten")
        totalBytes = try reader.int("totalBytes")
    }

    public var json: JSON { ["dialogId": .string(dialogId), "bytesWritten": .int(bytesWritten), "totalBytes": .int(totalBytes)] }
    public static var example: DialogProgressNotification { DialogProgressNotification(dialogId: "dlg-3", bytesWritten: 4_194_304, totalBytes: 8_388_608) }
}
