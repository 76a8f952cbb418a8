import WharfJSON

/// `dialog/list` (presenter): one page of a folder as the dialog's browser shows it.
public struct ListDirectoryRequest: RequestMessage {
    public static let method = "dialog/list"
    public typealias Result = ListDirectoryResult
    public var dialogId: String
    /// A path or `file:` URL; absent: where the dialog shows.
    public var directory: String?
    public var cursor: String?
    public var limit: Int64?
    /// Whether names starting with `.` are listed (the person showed or hid them); absent: as
    /// the dialog's `includeHiddenFiles`. Ignored with a cursor.
    public var showHidden: Bool?
    /// Selects the named filter at this index first (the person switched filters): the listing,
    /// and every pick after it, are judged by it. Ignored with a cursor.
    public var filter: Int64?

    public init(dialogId: String, directory: String? = nil, cursor: String? = nil, limit: Int64? = nil,
                showHidden: Bool? = nil, filter: Int64? = nil) {
        self.filter = filter
        self.dialogId = dialogId
        self.directory = directory
        self.cursor = cursor
        self.limit = limit
        self.showHidden = showHidden
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        dialogId = try reader.string("dialogId")
        directory = try reader.optionalString("directory")
        cursor = try reader.optionalString("cursor")
        limit = try reader.optionalInt("limit", in: 1...Int64(Int32.max))
        showHidden = try reader.optionalBool("showHidden")
        filter = try reader.optionalInt("filter", in: 0...Int64(Int32.max))
    }

    public var json: JSON {
        var object: JSONObject = ["dialogId": .string(dialogId)]
        object.set("directory", directory)
        object.set("cursor", cursor)
        object.set("limit", limit)
        object.set("showHidden", showHidden)
        object.set("filter", filter)
        return .object(object)
    }

    public static var example: ListDirectoryRequest {
        ListDirectoryRequest(dialogId: "dlg-1", directory: "file:///home/me", limit: 100, showHidden: true)
    }
}
