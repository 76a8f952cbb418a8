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

/// A type a client declares (`contentTypes/declare`).
public struct TypeDeclarationParams: ProtocolValue {
    public var identifier: String
    public var conformsTo: [String]
    public var filenameExtensions: [String]
    public var mimeTypes: [String]
    public var description: String?

    public init(identifier: String, conformsTo: [String], filenameExtensions: [String] = [], mimeTypes: [String] = [],
                description: String? = nil) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        identifier = try reader.string("identifier")
        conformsTo = try reader.strings("conformsTo")
        filenameExtensions = try reader.optionalStrings("filenameExtensions") ?? []
        mimeTypes = try reader.optionalStrings("mimeTypes") ?? []
        description = try reader.optionalString("description")
    }

    public var json: JSON {
        var object: JSONObject = ["identifier": .string(identifier), "conformsTo": .array(conformsTo.map(JSON.string)),
                                  "filenameExtensions": .array(filenameExtensions.map(JSON.string)),
                                  "mimeTypes": .array(mimeTypes.map(JSON.string))]
        object.set("description", description)
        return .object(object)
    }

    public static var example: TypeDeclarationParams {
        TypeDeclarationParams(identifier: "com.example.notes", conformsTo: ["public.plain-text"], filenameExtensions: ["notes"],
                              description: "Notes")
    }
}

/// What one file is (`contentTypes/identify`).
public struct IdentificationInfo: ProtocolValue {
    /// The path or URL as the client gave it.
    public var path: String
    public var identifier: String
    public var mimeType: String
    /// `extension`, `magic`, `fallback` or `fileSystem`.
    public var source: String

    public init(path: String, identifier: String, mimeType: String, source: String) {
        self.path = path
        self.identifier = identifier
        self.mimeType = mimeType
        self.source = source
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        path = try reader.string("path")
        identifier = try reader.string("identifier")
        mimeType = try reader.string("mimeType")
        source = try reader.string("source")
    }

    public var json: JSON {
        ["path": .string(path), "identifier": .string(identifier), "mimeType": .string(mimeType), "source": .string(source)]
    }

    public static var example: IdentificationInfo {
        IdentificationInfo(path: "/home/me/a.png", identifier: "public.png", mimeType: "image/png", source: "extension")
    }
}

/// Why one item of a list-valued request failed (the rest still succeed).
public struct ItemError: ProtocolValue {
    public var code: Int64
    public var message: String

    public init(code: Int64, message: String) {
        self.code = code
        self.message = message
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        code = try reader.int("code")
        message = try reader.string("message")
    }

    public var json: JSON { ["code": .int(code), "message": .string(message)] }
    public static var example: ItemError { ItemError(code: WharfErrorCode.fileOperationFailed.rawValue, message: "no such file") }
}
