import WharfJSON

/// `createBookmark`: access that outlives the session, for the app.
public struct CreateBookmarkRequest: RequestMessage {
    public static let method = "createBookmark"
    public typealias Result = BookmarkResult
    public var url: String
    public init(url: String) { self.url = url }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { url = try reader.string("url") }
    public var json: JSON { ["url": .string(url)] }
    public static var example: CreateBookmarkRequest { CreateBookmarkRequest(url: "file:///home/me/a.png") }
}
