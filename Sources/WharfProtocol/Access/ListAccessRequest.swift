import WharfJSON

/// `listAccess`: this session's grants and this app's bookmarks.
public struct ListAccessRequest: RequestMessage {
    public static let method = "listAccess"
    public typealias Result = ListAccessResult
    public init() {}
    public init(reading reader: inout FieldReader) throws(ProtocolError) {}
    public var json: JSON { .object(JSONObject()) }
    public static var example: ListAccessRequest { ListAccessRequest() }
}
