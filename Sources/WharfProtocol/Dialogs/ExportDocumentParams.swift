import WharfJSON

/// One document of an exporter: its bytes now, or later through `exporter/snapshot`.
public struct ExportDocumentParams: ProtocolValue {
    public var filename: String?
    public var writableContentTypes: [String]
    public var contents: DocumentContents?

    public init(filename: String? = nil, writableContentTypes: [String], contents: DocumentContents? = nil) {
        self.filename = filename
        self.writableContentTypes = writableContentTypes
        self.contents = contents
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        filename = try reader.optionalString("filename")
        writableContentTypes = try reader.strings("writableContentTypes")
        contents = try reader.optionalObject("contents") { reader throws(ProtocolError) in try DocumentContents(reading: &reader) }
    }

    public var json: JSON {
        var object = JSONObject()
        object.set("filename", filename)
        object["writableContentTypes"] = .array(writableContentTypes.map(JSON.string))
        object.set("contents", contents)
        return .object(object)
    }

    public static var example: ExportDocumentParams {
        ExportDocumentParams(filename: "notes", writableContentTypes: ["public.plain-text"], contents: .text("hello"))
    }
}
