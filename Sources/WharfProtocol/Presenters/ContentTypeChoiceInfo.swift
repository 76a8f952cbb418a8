import WharfJSON

/// One content type an exporter offers: what a type chooser shows for it, and the names the
/// documents take when the human picks it (for several documents, what `dialog/choose` with
/// this `contentType` and a folder writes).
public struct ContentTypeChoiceInfo: ProtocolValue {
    public var contentType: String
    public var description: String?
    public var filenames: [String]

    public init(contentType: String, description: String?, filenames: [String]) {
        self.contentType = contentType
        self.description = description
        self.filenames = filenames
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        contentType = try reader.string("contentType")
        description = try reader.nullableString("description")
        filenames = try reader.strings("filenames")
    }

    public var json: JSON {
        ["contentType": .string(contentType), "description": nullable(description), "filenames": .array(filenames.map(JSON.string))]
    }

    public static var example: ContentTypeChoiceInfo {
        ContentTypeChoiceInfo(contentType: "public.plain-text", description: "plain text document", filenames: ["notes.txt"])
    }
}
