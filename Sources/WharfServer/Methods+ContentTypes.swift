import WharfContentTypes
import WharfJSON
import WharfJSONRPC
import WharfSystem

extension MethodTable {
    /// `contentTypes/…`: the Uniform Type Identifier registry, as the calling client sees it
    /// (system types plus the client's own declarations).
    mutating func addContentTypeMethods() {
        add("contentTypes/describe", .immediate { session, params in
            let identifiers = try params.stringArray("identifiers")
            let types = session.contentTypes
            return .object(["types": .array(identifiers.map { identifier in
                guard let description = types.describe(identifier) else {
                    return ["identifier": .string(identifier), "error": ResponseError(.invalidParams, "unknown content type \(identifier)").json]
                }
                return description.json
            })])
        })
        add("contentTypes/identify", .deferred { session, params, reply in
            // Reading file heads touches the disk: off the read loop.
            let paths = try params.stringArray("paths")
            let sniff = try params.bool("sniff", default: true)
            let followSymlinks = try params.bool("followSymlinks", default: true)
            let types = session.contentTypes
            session.server.background {
                reply.succeed(["results": .array(paths.map { path in
                    guard let local = FileURL.pathOrURL(path) else {
                        return ["path": .string(path), "error": ResponseError(.invalidParams, "not an absolute path or file: URL").json]
                    }
                    switch types.identify(path: local, sniff: sniff, followSymlinks: followSymlinks) {
                    case .success(let found):
                        return ["path": .string(path), "identifier": .string(found.identifier),
                                "mimeType": .string(found.mimeType), "source": .string(found.source.rawValue)]
                    case .failure(let error):
                        return ["path": .string(path), "error": ResponseError(.fileOperationFailed, error.description).json]
                    }
                })])
            }
        })
        add("contentTypes/conforms", .immediate { session, params in
            let identifier = try params.string("identifier")
            let parent = try params.string("to")
            let types = session.contentTypes
            try types.requireKnown([identifier, parent], field: "identifier")
            return ["conforms": .bool(types.conforms(identifier, to: parent))]
        })
        add("contentTypes/fromFilenameExtension", .immediate { session, params in
            let ext = try params.string("filenameExtension")
            let parent = try params.optionalString("conformingTo")
            let types = session.contentTypes
            if let parent { try types.requireKnown([parent], field: "conformingTo") }
            return ["identifier": types.type(forFilenameExtension: ext, conformingTo: parent).map(JSON.string) ?? .null]
        })
        add("contentTypes/fromMIMEType", .immediate { session, params in
            let mimeType = try params.string("mimeType")
            let parent = try params.optionalString("conformingTo")
            let types = session.contentTypes
            if let parent { try types.requireKnown([parent], field: "conformingTo") }
            return ["identifier": types.type(forMIMEType: mimeType, conformingTo: parent).map(JSON.string) ?? .null]
        })
        add("contentTypes/declare", .immediate { session, params in
            guard let entries = try params.objectArray("types") else { throw params.missing("types") }
            var declarations: [TypeDeclaration] = []
            for entry in entries {
                declarations.append(TypeDeclaration(
                    identifier: try entry.string("identifier"),
                    conformsTo: try entry.stringArray("conformsTo"),
                    filenameExtensions: try entry.optionalStringArray("filenameExtensions") ?? [],
                    mimeTypes: try entry.optionalStringArray("mimeTypes") ?? [],
                    description: try entry.optionalString("description")
                ))
            }
            try session.declareContentTypes(declarations)
            return ["declared": .array(declarations.map { .string($0.identifier) })]
        })
        add("contentTypes/filters", .immediate { session, params in
            let identifiers = try params.stringArray("identifiers")
            let types = session.contentTypes
            try types.requireKnown(identifiers, field: "identifiers")
            return types.filters(for: identifiers).json
        })
    }
}

extension ContentTypeScope {
    /// -32602 naming every identifier the registry does not know.
    func requireKnown(_ identifiers: [String], field: String) throws {
        let unknown = identifiers.filter { !isKnown($0) }
        guard unknown.isEmpty else {
            throw ResponseError.invalidParams("\(field): unknown content type\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", "))")
        }
    }
}

extension TypeDescription {
    var json: JSON {
        [
            "identifier": .string(identifier),
            "description": .string(description),
            "conformsTo": .array(conformsTo.map(JSON.string)),
            "supertypes": .array(supertypes.map(JSON.string)),
            "preferredFilenameExtension": preferredFilenameExtension.map(JSON.string) ?? .null,
            "filenameExtensions": .array(filenameExtensions.map(JSON.string)),
            "preferredMIMEType": preferredMIMEType.map(JSON.string) ?? .null,
            "mimeTypes": .array(mimeTypes.map(JSON.string)),
            "isDeclared": .bool(isDeclared),
            "isDynamic": .bool(isDynamic),
        ]
    }
}

extension WharfContentTypes.DialogFilters {
    var json: JSON {
        [
            "globs": .array(globs.map(JSON.string)),
            "mimeTypes": .array(mimeTypes.map(JSON.string)),
            "directories": .bool(directories),
            "allowsAllFiles": .bool(allowsAllFiles),
        ]
    }
}
