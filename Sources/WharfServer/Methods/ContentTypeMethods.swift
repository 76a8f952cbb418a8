import WharfAccess
import WharfContentTypes
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// `contentTypes/…`: the Uniform Type Identifier registry, as the calling client sees it
    /// (system types plus the client's own declarations).
    mutating func addContentTypeMethods() {
        onReadLoop(DescribeTypesRequest.self) { session, request in
            let types = session.contentTypes
            var answerBytes = 0
            return DescribeTypesResult(types: request.identifiers.map { identifier in
                guard let description = types.describe(identifier) else {
                    return .unknown(identifier: identifier,
                                    error: ItemError(code: WharfErrorCode.invalidParams.rawValue, message: "unknown content type \(identifier)"))
                }
                // A short request can name one large type many times over: the answer stops
                // growing at its bound (the first description always goes).
                let size = description.byteCount
                guard answerBytes == 0 || answerBytes + size <= Self.describeAnswerBytes else {
                    return .unknown(identifier: identifier, error: ItemError(
                        code: WharfErrorCode.invalidParams.rawValue,
                        message: "not described: this answer would pass \(Self.describeAnswerBytes) bytes; describe it in another request"))
                }
                answerBytes += size
                return .type(TypeDescriptionInfo(description))
            })
        }
        // Reading file heads touches the disk.
        onWorker(IdentifyRequest.self, on: .files) { session, request in
            let types = session.contentTypes
            return IdentifyResult(results: request.paths.map { path in
                guard let local = FileURL.pathOrURL(path) else {
                    return .failed(path: path, error: ItemError(code: WharfErrorCode.invalidParams.rawValue,
                                                                message: "not an absolute path or file: URL"))
                }
                let identified = session.origin.isDaemonClient
                    ? session.identifyForAnotherProcess(path, local, sniff: request.sniff, followSymlinks: request.followSymlinks)
                    : types.identify(path: local, sniff: request.sniff, followSymlinks: request.followSymlinks).forClient
                switch identified {
                case .success(let found):
                    return .identified(IdentificationInfo(path: path, identifier: found.identifier,
                                                          mimeType: found.mimeType, source: found.source.rawValue))
                case .failure(.accessDenied(let message)):
                    return .failed(path: path, error: ItemError(code: WharfErrorCode.accessDenied.rawValue, message: message))
                case .failure(.identification(let error)):
                    return .failed(path: path, error: ItemError(code: WharfErrorCode.fileOperationFailed.rawValue, message: error.description))
                }
            })
        }
        onReadLoop(ConformsRequest.self) { session, request in
            let types = session.contentTypes
            try types.requireKnown([request.identifier, request.to], field: "identifier")
            return ConformsResult(conforms: types.conforms(request.identifier, to: request.to))
        }
        onReadLoop(TypeForExtensionRequest.self) { session, request in
            let types = session.contentTypes
            if let parent = request.conformingTo { try types.requireKnown([parent], field: "conformingTo") }
            return TypeLookupResult(identifier: types.type(forFilenameExtension: request.filenameExtension,
                                                           conformingTo: request.conformingTo))
        }
        onReadLoop(TypeForMIMETypeRequest.self) { session, request in
            let types = session.contentTypes
            if let parent = request.conformingTo { try types.requireKnown([parent], field: "conformingTo") }
            return TypeLookupResult(identifier: types.type(forMIMEType: request.mimeType, conformingTo: request.conformingTo))
        }
        onReadLoop(DeclareTypesRequest.self) { session, request in
            let declarations = request.types.map {
                TypeDeclaration(identifier: $0.identifier, conformsTo: $0.conformsTo, filenameExtensions: $0.filenameExtensions,
                                mimeTypes: $0.mimeTypes, description: $0.description)
            }
            // All or none: `declare` validates everything before it changes anything.
            try session.types.withValue { scope throws(ContentTypeError) in try scope.declare(declarations) }
            return DeclareTypesResult(declared: declarations.map(\.identifier))
        }
        onReadLoop(FiltersRequest.self) { session, request in
            let types = session.contentTypes
            try types.requireKnown(request.identifiers, field: "identifiers")
            let filters = types.filters(for: request.identifiers)
            // As presenter/show gives a dialog's filters: "all files" is said by allowsAllFiles,
            // with both lists empty (the table's ["*"] is for the desktop dialogs' own filters).
            guard !filters.allowsAllFiles else {
                return FiltersResult(globs: [], mimeTypes: [], directories: filters.directories, allowsAllFiles: true)
            }
            return FiltersResult(globs: filters.globs, mimeTypes: filters.mimeTypes, directories: filters.directories,
                                 allowsAllFiles: false)
        }
    }
}

extension MethodTable {
    /// About how many bytes of descriptions one `contentTypes/describe` answers: every system
    /// type (some 300 bytes each) fits many times over. The answer is built on the read loop,
    /// and 1,000 names of a deep declared type had asked for 261 MB of it.
    static let describeAnswerBytes = 4 << 20
}

extension ContentTypeScope {
    /// -32602 naming every identifier the registry does not know, with the identifier it
    /// stands for when a MIME type was given where an identifier belongs (`image/png` →
    /// `public.png`).
    func requireKnown(_ identifiers: [String], field: String) throws(ResponseError) {
        let unknown = identifiers.filter { !isKnown($0) }
        guard !unknown.isEmpty else { return }
        throw unknownTypes(unknown, field: field)
    }

    /// The -32602 for identifiers the registry does not know.
    func unknownTypes(_ unknown: [String], field: String) -> ResponseError {
        let named = unknown.map { identifier in
            guard identifier.contains("/"), let meant = type(forMIMEType: identifier, conformingTo: nil), !meant.hasPrefix("dyn.") else {
                return identifier
            }
            return "\(identifier) (a MIME type; its identifier is \(meant))"
        }
        return .invalidParams("\(field): unknown content type\(unknown.count == 1 ? "" : "s") \(named.joined(separator: ", "))")
    }
}

extension TypeDescriptionInfo {
    init(_ description: TypeDescription) {
        self.init(identifier: description.identifier, description: description.description, conformsTo: description.conformsTo,
                  supertypes: description.supertypes, preferredFilenameExtension: description.preferredFilenameExtension,
                  filenameExtensions: description.filenameExtensions, preferredMIMEType: description.preferredMIMEType,
                  mimeTypes: description.mimeTypes, isDeclared: description.isDeclared, isDynamic: description.isDynamic)
    }
}

/// Why a file could not be identified: the file itself, or, over the daemon, no right to read it.
enum IdentifyFailure: Error {
    case identification(IdentifyError)
    case accessDenied(String)
}

extension Result where Failure == IdentifyError {
    var forClient: Result<Success, IdentifyFailure> { mapError { .identification($0) } }
}

