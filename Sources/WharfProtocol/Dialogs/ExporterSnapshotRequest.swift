import WharfJSON

/// `exporter/snapshot` (server → client): a lazy document's bytes, now that the human has
/// chosen where and as what. The answer is the bytes, in one of the three contents forms.
public struct ExporterSnapshotRequest: RequestMessage {
    public static let method = "exporter/snapshot"
    public static var direction: Direction { .serverToClient }
    public typealias Result = DocumentContents
    public var dialogId: String
    public var documentIndex: Int64
    public var contentType: String

    public init(dialogId: String, documentIndex: Int64, contentType: String) {
        self.dialogId = dialogId
        self.documentIndex = documentIndex
        self.contentType = contentType
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        documentIndex = try reader.int("documentIndex", in: 0...Int64(Int32.max))
        contentType = try reader.string("contentType")
    }

    public var json: JSON {
        ["dialogId": .string(dialogId), "documentIndex": .int(documentIndex), "contentType": .string(contentType)]
    }

    public static var example: ExporterSnapshotRequest {
        ExporterSnapshotRequest(dialogId: "dlg-2", documentIndex: 1, contentType: "public.json")
    }
}
