import WharfJSON

/// `presentImporter`: SwiftUI's `fileImporter`.
public struct PresentImporterRequest: RequestMessage {
    public static let method = "presentImporter"
    public typealias Result = PresentResult

    public var allowedContentTypes: [String]
    public var allowsMultipleSelection: Bool
    public var presentationId: String?
    public var options: DialogOptionsParams
    /// The window the dialog is modal to, in the portal's notation (`x11:<hex XID>`,
    /// `wayland:<handle>`), passed to a desktop dialog as it is.
    public var parentWindow: String?

    public init(allowedContentTypes: [String], allowsMultipleSelection: Bool = false, presentationId: String? = nil,
                options: DialogOptionsParams = DialogOptionsParams(), parentWindow: String? = nil) {
        self.allowedContentTypes = allowedContentTypes
        self.allowsMultipleSelection = allowsMultipleSelection
        self.presentationId = presentationId
        self.options = options
        self.parentWindow = parentWindow
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        allowedContentTypes = try reader.strings("allowedContentTypes")
        allowsMultipleSelection = try reader.bool("allowsMultipleSelection", default: false)
        presentationId = try reader.optionalIdentifier("presentationId")
        options = try DialogOptionsParams.read(from: &reader, exporter: false)
        parentWindow = try reader.optionalString("parentWindow")
    }

    public var json: JSON {
        var object: JSONObject = ["allowedContentTypes": .array(allowedContentTypes.map(JSON.string)),
                                  "allowsMultipleSelection": .bool(allowsMultipleSelection)]
        object.set("presentationId", presentationId)
        object["options"] = options.json
        object.set("parentWindow", parentWindow)
        return .object(object)
    }

    public static var example: PresentImporterRequest {
        PresentImporterRequest(allowedContentTypes: ["public.image"], allowsMultipleSelection: true, presentationId: "cover",
                               options: .example, parentWindow: "x11:3a00007")
    }
}
