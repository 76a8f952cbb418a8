import WharfJSON

/// `presentExporter`: SwiftUI's `fileExporter`, in its `FileDocument` form (`contentType`) or its
/// `WritableDocument` form (`contentTypes`).
public struct PresentExporterRequest: RequestMessage {
    public static let method = "presentExporter"
    public typealias Result = PresentResult

    public var documents: [ExportDocumentParams]
    public var contentType: String?
    public var contentTypes: [String]?
    public var defaultFilename: String?
    public var presentationId: String?
    public var options: DialogOptionsParams
    /// As for the importer.
    public var parentWindow: String?
    /// Only choose and check where to save; write nothing (the client writes).
    public var destinationOnly: Bool?
    /// The destination is a folder the documents are saved into, even when there is one.
    public var savesIntoFolder: Bool?

    public init(documents: [ExportDocumentParams], contentType: String? = nil, contentTypes: [String]? = nil,
                defaultFilename: String? = nil, presentationId: String? = nil,
                options: DialogOptionsParams = DialogOptionsParams(), parentWindow: String? = nil,
                destinationOnly: Bool? = nil, savesIntoFolder: Bool? = nil) {
        self.destinationOnly = destinationOnly
        self.savesIntoFolder = savesIntoFolder
        self.documents = documents
        self.contentType = contentType
        self.contentTypes = contentTypes
        self.defaultFilename = defaultFilename
        self.presentationId = presentationId
        self.options = options
        self.parentWindow = parentWindow
    }

    /// The most documents one exporter may name: 256. Each may hold a descriptor (a `path` or
    /// `fd` document over the daemon) or its bytes while the dialog is open; one request naming
    /// 20,000 held 19,975 of the daemon's descriptors.
    public static let maximumDocuments = 256

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        documents = try reader.objects("documents") { reader throws(ProtocolError) in try ExportDocumentParams(reading: &reader) }
        guard documents.count <= Self.maximumDocuments else {
            throw ProtocolError("documents: at most \(Self.maximumDocuments) in one exporter (\(documents.count) given)")
        }
        contentType = try reader.optionalString("contentType")
        contentTypes = try reader.optionalStrings("contentTypes")
        if contentType != nil && contentTypes != nil {
            throw ProtocolError("contentType and contentTypes: give one or the other (FileDocument or WritableDocument form)")
        }
        defaultFilename = try reader.optionalString("defaultFilename")
        presentationId = try reader.optionalIdentifier("presentationId")
        options = try DialogOptionsParams.read(from: &reader, exporter: true)
        parentWindow = try reader.optionalString("parentWindow")
        destinationOnly = try reader.optionalBool("destinationOnly")
        savesIntoFolder = try reader.optionalBool("savesIntoFolder")
    }

    public var json: JSON {
        var object: JSONObject = ["documents": .array(documents.map(\.json))]
        object.set("contentType", contentType)
        object.set("contentTypes", contentTypes)
        object.set("defaultFilename", defaultFilename)
        object.set("presentationId", presentationId)
        object["options"] = options.json
        object.set("parentWindow", parentWindow)
        object.set("destinationOnly", destinationOnly)
        object.set("savesIntoFolder", savesIntoFolder)
        return .object(object)
    }

    public static var example: PresentExporterRequest {
        PresentExporterRequest(
            documents: [.example, ExportDocumentParams(filename: "later", writableContentTypes: ["public.json"])],
            contentTypes: ["public.plain-text", "public.json"], defaultFilename: "Untitled",
            options: DialogOptionsParams(title: "Save notes", filenameLabel: "Save as:"))
    }
}
