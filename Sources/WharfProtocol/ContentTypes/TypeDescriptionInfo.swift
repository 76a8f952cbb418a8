import WharfJSON

/// Everything known about one content type (`contentTypes/describe`).
public struct TypeDescriptionInfo: ProtocolValue {
    public var identifier: String
    public var description: String
    public var conformsTo: [String]
    public var supertypes: [String]
    public var preferredFilenameExtension: String?
    public var filenameExtensions: [String]
    public var preferredMIMEType: String?
    public var mimeTypes: [String]
    public var isDeclared: Bool
    public var isDynamic: Bool

    public init(identifier: String, description: String, conformsTo: [String], supertypes: [String],
                preferredFilenameExtension: String?, filenameExtensions: [String], preferredMIMEType: String?,
                mimeTypes: [String], isDeclared: Bool, isDynamic: Bool) {
        self.identifier = identifier
        self.description = description
        self.conformsTo = conformsTo
        self.supertypes = supertypes
        self.preferredFilenameExtension = preferredFilenameExtension
        self.filenameExtensions = filenameExtensions
        self.preferredMIMEType = preferredMIMEType
        self.mimeTypes = mimeTypes
        self.isDeclared = isDeclared
        self.isDynamic = isDynamic
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        identifier = try reader.string("identifier")
        description = try reader.string("description")
        conformsTo = try reader.strings("conformsTo")
        supertypes = try reader.strings("supertypes")
        preferredFilenameExtension = try reader.optionalString("preferredFilenameExtension")
        filenameExtensions = try reader.strings("filenameExtensions")
        preferredMIMEType = try reader.optionalString("preferredMIMEType")
        mimeTypes = try reader.strings("mimeTypes")
        isDeclared = try reader.bool("isDeclared", default: false)
        isDynamic = try reader.bool("isDynamic", default: false)
    }

    public var json: JSON {
        [
            "identifier": .string(identifier), "description": .string(description),
            "conformsTo": .array(conformsTo.map(JSON.string)), "supertypes": .array(supertypes.map(JSON.string)),
            "preferredFilenameExtension": nullable(preferredFilenameExtension),
            "filenameExtensions": .array(filenameExtensions.map(JSON.string)),
            "preferredMIMEType": nullable(preferredMIMEType), "mimeTypes": .array(mimeTypes.map(JSON.string)),
            "isDeclared": .bool(isDeclared), "isDynamic": .bool(isDynamic),
        ]
    }

    public static var example: TypeDescriptionInfo {
        TypeDescriptionInfo(identifier: "public.png", description: "PNG image", conformsTo: ["public.image"],
                            supertypes: ["public.image", "public.data", "public.item", "public.content"],
                            preferredFilenameExtension: "png", filenameExtensions: ["png"], preferredMIMEType: "image/png",
                            mimeTypes: ["image/png"], isDeclared: true, isDynamic: false)
    }
}
