import WharfJSON

public struct BookmarkResult: ProtocolValue {
    public var bookmark: String
    public init(bookmark: String) { self.bookmark = bookmark }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { bookmark = try reader.string("bookmark") }
    public var json: JSON { ["bookmark": .string(bookmark)] }
    public static var example: BookmarkResult { BookmarkResult(bookmark: "wb1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") }
}
