import WharfJSON

/// `contentTypes/fromMIMEType`.
public struct TypeForMIMETypeRequest: RequestMessage {
    public static let method = "contentTypes/fromMIMEType"
    public typealias Result = TypeLookupResult
    public var mimeType: String
    public var conformingTo: String?

    public init(mimeType: String, conformingTo: String? = nil) {
        self.mimeType = mimeType
        self.conformingTo = conformingTo
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        mimeType = try reader.string("mimeType")
        conformingTo = try reader.optionalString("conformingTo")
    }

    public var json: JSON {
        var object: JSONObject = ["mimeType": .string(mimeType)]
        object.set("conformingTo", conformingTo)
        return .object(object)
    }

    public static var example: TypeForMIMETypeRequest { TypeForMIMETypeRequest(mimeType: "image/png") }
}
