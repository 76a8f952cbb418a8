import WharfJSON

/// `presentMover`: SwiftUI's `fileMover`. The app names files it holds grants for; the human
/// chooses a folder; the files are moved there.
public struct PresentMoverRequest: RequestMessage {
    public static let method = "presentMover"
    public typealias Result = PresentResult

    /// `file:` URLs or absolute paths, each granted to the client.
    public var urls: [String]
    public var presentationId: String?
    public var options: DialogOptionsParams
    /// As for the importer.
    public var parentWindow: String?

    /// The most files one mover may name: as many as an exporter's documents.
    public static let maximumFiles = 256

    public init(urls: [String], presentationId: String? = nil, options: DialogOptionsParams = DialogOptionsParams(),
                parentWindow: String? = nil) {
        self.urls = urls
        self.presentationId = presentationId
        self.options = options
        self.parentWindow = parentWindow
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        urls = try reader.strings("urls")
        guard !urls.isEmpty else { throw ProtocolError("urls must not be empty: name the files to move") }
        guard urls.count <= Self.maximumFiles else {
            throw ProtocolError("urls: at most \(Self.maximumFiles) files in one mover (\(urls.count) given)")
        }
        presentationId = try reader.optionalIdentifier("presentationId")
        // Known fields that mean nothing here are refused, not ignored: the human chooses a
        // folder, not files, and names nothing.
        options = try DialogOptionsParams.read(from: &reader, exporter: false)
        if options.urlEnabled != nil {
            throw ProtocolError("options.urlEnabled: a mover's human chooses a folder, which urlEnabled does not judge")
        }
        if options.importsUnresolvedAliases {
            throw ProtocolError("options.importsUnresolvedAliases: only importers return picked links")
        }
        if !options.filters.isEmpty {
            throw ProtocolError("options.filters: a mover's human chooses a folder, which named filters do not judge")
        }
        if !options.choices.isEmpty {
            throw ProtocolError("options.choices: a mover shows no choices; it asks only for a folder")
        }
        parentWindow = try reader.optionalString("parentWindow")
    }

    public var json: JSON {
        var object: JSONObject = ["urls": .array(urls.map(JSON.string))]
        object.set("presentationId", presentationId)
        object["options"] = options.json
        object.set("parentWindow", parentWindow)
        return .object(object)
    }

    public static var example: PresentMoverRequest {
        PresentMoverRequest(
            urls: ["file:///home/me/Downloads/report.pdf", "file:///home/me/Downloads/notes.txt"], presentationId: "tidy",
            options: DialogOptionsParams(defaultDirectory: "file:///home/me/Documents", title: "Move to", confirmationLabel: "Move",
                                         customizationId: "archive", timeoutMs: 60_000))
    }
}
