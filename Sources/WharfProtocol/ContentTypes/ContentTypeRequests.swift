import WharfJSON

/// `contentTypes/describe`: what the server knows about each identifier.
public struct DescribeTypesRequest: RequestMessage {
    public static let method = "contentTypes/describe"
    public typealias Result = DescribeTypesResult
    public var identifiers: [String]

    public init(identifiers: [String]) { self.identifiers = identifiers }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifiers = try reader.strings("identifiers") }
    public var json: JSON { ["identifiers": .array(identifiers.map(JSON.string))] }
    public static var example: DescribeTypesRequest { DescribeTypesRequest(identifiers: ["public.png", "com.nope"]) }
}

public struct DescribeTypesResult: ProtocolValue {
    /// One per identifier asked about, in order.
    public var types: [Item]

    public enum Item: Sendable, Equatable {
        case type(TypeDescriptionInfo)
        case unknown(identifier: String, error: ItemError)
    }

    public init(types: [Item]) { self.types = types }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        types = try reader.objects("types") { reader throws(ProtocolError) in
            if reader.has("error") {
                return .unknown(identifier: try reader.string("identifier"),
                                error: try reader.object("error") { reader throws(ProtocolError) in try ItemError(reading: &reader) })
            }
            return .type(try TypeDescriptionInfo(reading: &reader))
        }
    }

    public var json: JSON {
        ["types": .array(types.map { item in
            switch item {
            case .type(let description): return description.json
            case .unknown(let identifier, let error): return ["identifier": .string(identifier), "error": error.json]
            }
        })]
    }

    public static var example: DescribeTypesResult {
        DescribeTypesResult(types: [.type(.example), .unknown(identifier: "com.nope", error: .example)])
    }
}

/// `contentTypes/identify`: what each file is.
public struct IdentifyRequest: RequestMessage {
    public static let method = "contentTypes/identify"
    public typealias Result = IdentifyResult
    /// Paths or `file:` URLs.
    public var paths: [String]
    public var sniff: Bool
    public var followSymlinks: Bool

    public init(paths: [String], sniff: Bool = true, followSymlinks: Bool = true) {
        self.paths = paths
        self.sniff = sniff
        self.followSymlinks = followSymlinks
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        paths = try reader.strings("paths")
        sniff = try reader.bool("sniff", default: true)
        followSymlinks = try reader.bool("followSymlinks", default: true)
    }

    public var json: JSON {
        ["paths": .array(paths.map(JSON.string)), "sniff": .bool(sniff), "followSymlinks": .bool(followSymlinks)]
    }

    public static var example: IdentifyRequest { IdentifyRequest(paths: ["/home/me/a.png", "file:///home/me/notes"]) }
}

public struct IdentifyResult: ProtocolValue {
    public var results: [Item]

    public enum Item: Sendable, Equatable {
        case identified(IdentificationInfo)
        case failed(path: String, error: ItemError)
    }

    public init(results: [Item]) { self.results = results }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        results = try reader.objects("results") { reader throws(ProtocolError) in
            if reader.has("error") {
                return .failed(path: try reader.string("path"),
                               error: try reader.object("error") { reader throws(ProtocolError) in try ItemError(reading: &reader) })
            }
            return .identified(try IdentificationInfo(reading: &reader))
        }
    }

    public var json: JSON {
        ["results": .array(results.map { item in
            switch item {
            case .identified(let found): return found.json
            case .failed(let path, let error): return ["path": .string(path), "error": error.json]
            }
        })]
    }

    public static var example: IdentifyResult {
        IdentifyResult(results: [.identified(.example), .failed(path: "/home/me/missing", error: .example)])
    }
}

/// `contentTypes/conforms`.
public struct ConformsRequest: RequestMessage {
    public static let method = "contentTypes/conforms"
    public typealias Result = ConformsResult
    public var identifier: String
    public var to: String

    public init(identifier: String, to: String) {
        self.identifier = identifier
        self.to = to
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        identifier = try reader.string("identifier")
        to = try reader.string("to")
    }

    public var json: JSON { ["identifier": .string(identifier), "to": .string(to)] }
    public static var example: ConformsRequest { ConformsRequest(identifier: "public.png", to: "public.image") }
}

public struct ConformsResult: ProtocolValue {
    public var conforms: Bool
    public init(conforms: Bool) { self.conforms = conforms }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { conforms = try reader.bool("conforms", default: false) }
    public var json: JSON { ["conforms": .bool(conforms)] }
    public static var example: ConformsResult { ConformsResult(conforms: true) }
}

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

/// The answer of both tag lookups: an identifier, or `null` for a malformed tag.
public struct TypeLookupResult: ProtocolValue {
    public var identifier: String?
    public init(identifier: String?) { self.identifier = identifier }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifier = try reader.optionalString("identifier") }
    public var json: JSON { ["identifier": nullable(identifier)] }
    public static var example: TypeLookupResult { TypeLookupResult(identifier: "public.png") }
}

/// `contentTypes/declare`: the client's own types, all or none.
public struct DeclareTypesRequest: RequestMessage {
    public static let method = "contentTypes/declare"
    public typealias Result = DeclareTypesResult
    public var types: [TypeDeclarationParams]

    public init(types: [TypeDeclarationParams]) { self.types = types }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        types = try reader.objects("types") { reader throws(ProtocolError) in try TypeDeclarationParams(reading: &reader) }
    }

    public var json: JSON { ["types": .array(types.map(\.json))] }
    public static var example: DeclareTypesRequest { DeclareTypesRequest(types: [.example]) }
}

public struct DeclareTypesResult: ProtocolValue {
    public var declared: [String]
    public init(declared: [String]) { self.declared = declared }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { declared = try reader.strings("declared") }
    public var json: JSON { ["declared": .array(declared.map(JSON.string))] }
    public static var example: DeclareTypesResult { DeclareTypesResult(declared: ["com.example.notes"]) }
}

/// `contentTypes/filters`: how a file view should filter for these types.
public struct FiltersRequest: RequestMessage {
    public static let method = "contentTypes/filters"
    public typealias Result = FiltersResult
    public var identifiers: [String]

    public init(identifiers: [String]) { self.identifiers = identifiers }
    public init(reading reader: inout FieldReader) throws(ProtocolError) { identifiers = try reader.strings("identifiers") }
    public var json: JSON { ["identifiers": .array(identifiers.map(JSON.string))] }
    public static var example: FiltersRequest { FiltersRequest(identifiers: ["public.image"]) }
}

public struct FiltersResult: ProtocolValue {
    public var globs: [String]
    public var mimeTypes: [String]
    public var directories: Bool
    public var allowsAllFiles: Bool

    public init(globs: [String], mimeTypes: [String], directories: Bool, allowsAllFiles: Bool) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
        self.allowsAllFiles = allowsAllFiles
    }

    public init(reading reader: inout FieldReader) throws(ProtocolError) {
        globs = try reader.strings("globs")
        mimeTypes = try reader.strings("mimeTypes")
        directories = try reader.bool("directories", default: false)
        allowsAllFiles = try reader.bool("allowsAllFiles", default: false)
    }

    public var json: JSON {
        ["globs": .array(globs.map(JSON.string)), "mimeTypes": .array(mimeTypes.map(JSON.string)),
         "directories": .bool(directories), "allowsAllFiles": .bool(allowsAllFiles)]
    }

    public static var example: FiltersResult {
        FiltersResult(globs: ["*.png", "*.jpg"], mimeTypes: ["image/*"], directories: false, allowsAllFiles: false)
    }
}
