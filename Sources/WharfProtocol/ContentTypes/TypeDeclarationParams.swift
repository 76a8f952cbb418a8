import WharfJSON

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
