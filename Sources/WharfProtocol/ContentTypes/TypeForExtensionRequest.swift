import WharfJSON

/// `contentTypes/fromFilenameExtension`.
public struct TypeForExtensionRequest: RequestMessage {
    public static let method = "contentTypes/fromFilenameExtension"
    public typealias Result = TypeLookupResult
    public var filenameExtension: String
    public var conformingTo: String?

    public init(filenameExtension: String, conformingTo: String? = nil) {
        self.filenameExtension = filenameExtension
        self.conformingTo = conformingTo
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        filenameExtension = try reader.string("filenameExtension")
        conformingTo = try reader.optionalString("conformingTo")
    }

    public var json: JSON {
        var object: JSONObject = ["filenameExtension": .string(filenameExtension)]
        object.set("conformingTo", conformingTo)
        return .object(object)
    }

    public static var example: TypeForExtensionRequest { TypeForExtensionRequest(filenameExtension: "png", conformingTo: "public.image") }
}
