import WharfFileWriting
import WharfSystem

/// A request the engine's checks have passed (``DialogEngine/check(_:types:)-(ImporterRequest,_)``):
/// presenting it checks nothing again. Only the checks make one.
public struct CheckedRequest<Request: Sendable>: Sendable {
    public let request: Request

    fileprivate init(_ request: Request) { self.request = request }
}

extension DialogEngine {
    /// Checks `request` completely, presenting nothing: every error names its field. A server
    /// checks before it looks for a presenter, so that a request with bad params is told so
    /// whoever could present it.
    public static func check(_ request: ImporterRequest, types: any ContentTypeOracle) throws(DialogError) -> CheckedRequest<ImporterRequest> {
        try RequestValidation.validate(request, types: types)
        return CheckedRequest(request)
    }

    /// The exporter's twin of ``check(_:types:)-(ImporterRequest,_)``; reads the disk (a
    /// document's `path`).
    public static func check(_ request: ExporterRequest, types: any ContentTypeOracle) throws(DialogError) -> CheckedRequest<ExporterRequest> {
        try RequestValidation.validate(request, types: types)
        return CheckedRequest(request)
    }

    /// The mover's twin of ``check(_:types:)-(ImporterRequest,_)``.
    public static func check(_ request: MoverRequest, types: any ContentTypeOracle) throws(DialogError) -> CheckedRequest<MoverRequest> {
        try RequestValidation.validate(request, types: types)
        return CheckedRequest(request)
    }
}

/// Checks a request completely before anything is presented, so a refused request leaves no
/// trace. Every error names the field it is about.
enum RequestValidation {
    static func validate(_ request: ImporterRequest, types: any ContentTypeOracle) throws(DialogError) {
        if request.allowedContentTypes.isEmpty {
            throw .invalidArgument(field: "allowedContentTypes", reason: "must not be empty")
        }
        try known(request.allowedContentTypes, field: "allowedContentTypes", types: types)
        try validate(presentationId: request.presentationId)
        try validate(request.options, types: types)
    }

    static func validate(_ request: ExporterRequest, types: any ContentTypeOracle) throws(DialogError) {
        if request.documents.isEmpty { throw .emptyDocuments }
        for (index, document) in request.documents.enumerated() {
            let field = "documents[\(index)]"
            if document.writableContentTypes.isEmpty {
                throw .invalidArgument(field: "\(field).writableContentTypes", reason: "must not be empty")
            }
            try known(document.writableContentTypes, field: "\(field).writableContentTypes", types: types)
            if let filename = document.filename { try validate(filename: filename, field: "\(field).filename") }
            if case .file(let path) = document.contents {
                try validate(sourcePath: path, field: "\(field).contents.path")
            }
            if request.destinationOnly && document.contents != nil {
                throw .invalidArgument(
                    field: "\(field).contents",
                    reason: "a destinationOnly exporter writes nothing, so its documents carry no contents")
            }
        }
        switch request.contentTypes {
        case .contentType(let type):
            try known([type], field: "contentType", types: types)
        case .contentTypes(let list):
            try known(list, field: "contentTypes", types: types)
            // Offered types are what the human picks from, and the pick names the file (a PNG
            // picked is saved as `n.png`): a type no document can be written as would be written
            // as another under its name, so it is never offered.
            for type in list where !request.documents.contains(where: { ExporterPlan.canWrite($0, as: type) }) {
                throw .invalidArgument(
                    field: "contentTypes",
                    reason: "names \(type), which is not among any document's writableContentTypes: no document could be written as it")
            }
        }
        if let name = request.defaultFilename { try validate(filename: name, field: "defaultFilename") }
        try validate(presentationId: request.presentationId)
        try validate(request.options, types: types)
    }

    /// A mover's files were each found granted by the server; what is left is what a move into
    /// one folder needs: each file once, no two of one name (one folder cannot hold both), and
    /// never the root folder. Options as for the others, but for named filters and choices.
    static func validate(_ request: MoverRequest, types: any ContentTypeOracle) throws(DialogError) {
        if request.files.isEmpty { throw .invalidArgument(field: "urls", reason: "must not be empty: name the files to move") }
        var byPath: [FilePath: Int] = [:]
        var byName: [[UInt8]: Int] = [:]
        for (index, file) in request.files.enumerated() {
            let field = "urls[\(index)]"
            if file.path == .root { throw .invalidArgument(field: field, reason: "is the root folder, which cannot be moved") }
            if let earlier = byPath[file.path] {
                throw .invalidArgument(field: field, reason: "names the same file as urls[\(earlier)] (\(file.path.url))")
            }
            if let earlier = byName[file.path.lastComponent] {
                throw .invalidArgument(field: field, reason: "has the same name as urls[\(earlier)]: one folder cannot hold both (\(file.path.url))")
            }
            byPath[file.path] = index
            byName[file.path.lastComponent] = index
        }
        // The human chooses a folder: named filters judge files, and a mover shows no choices.
        if !request.options.filters.isEmpty {
            throw .invalidArgument(field: "options.filters", reason: "a mover's human chooses a folder, which named filters do not judge")
        }
        if !request.options.choices.isEmpty {
            throw .invalidArgument(field: "options.choices", reason: "a mover shows no choices; it asks only for a folder")
        }
        try validate(presentationId: request.presentationId)
        try validate(request.options, types: types)
    }

    private static func validate(_ options: DialogOptions, types: any ContentTypeOracle) throws(DialogError) {
        if let directory = options.defaultDirectory, !directory.isAbsolute {
            throw .invalidArgument(field: "options.defaultDirectory", reason: "must be an absolute path (\(directory))")
        }
        if let timeout = options.timeoutMs, timeout <= 0 {
            throw .invalidArgument(field: "options.timeoutMs", reason: "must be a positive number of milliseconds (got \(timeout))")
        }
        if let id = options.customizationId, id.isEmpty {
            throw .invalidArgument(field: "options.customizationId", reason: "must not be empty")
        }
        try validate(text: options.title, field: "options.title")
        try validate(text: options.message, field: "options.message")
        try validate(text: options.confirmationLabel, field: "options.confirmationLabel")
        try validate(text: options.filenameLabel, field: "options.filenameLabel")
        try validate(text: options.customizationId, field: "options.customizationId")
        try options.urlEnabled?.validate(field: "options.urlEnabled", types: types)
        try validate(filters: options.filters, current: options.currentFilter, types: types)
        try validate(choices: options.choices)
    }

    /// The most filters and choices one dialog may have: a dialog shows a few.
    static let maximumFilters = 1024
    static let maximumChoices = 64

    private static func validate(filters: [DialogFilter], current: Int, types: any ContentTypeOracle) throws(DialogError) {
        if filters.count > maximumFilters {
            throw .invalidArgument(field: "options.filters", reason: "at most \(maximumFilters) filters (\(filters.count) given)")
        }
        for (index, filter) in filters.enumerated() {
            if filter.name.isEmpty { throw .invalidArgument(field: "options.filters[\(index)].name", reason: "must not be empty") }
            try validate(text: filter.name, field: "options.filters[].name")
            try filter.predicate.validate(field: "options.filters[\(index)].predicate", types: types)
        }
        if filters.isEmpty ? current != 0 : !filters.indices.contains(current) {
            throw .invalidArgument(field: "options.currentFilter", reason: "\(current) is not the index of one of the \(filters.count) filters")
        }
    }

    private static func validate(choices: [DialogChoice]) throws(DialogError) {
        if choices.count > maximumChoices {
            throw .invalidArgument(field: "options.choices", reason: "at most \(maximumChoices) choices (\(choices.count) given)")
        }
        var ids = Set<String>()
        for (index, choice) in choices.enumerated() {
            let field = "options.choices[\(index)]"
            if choice.id.isEmpty { throw .invalidArgument(field: field + ".id", reason: "must not be empty") }
            if !ids.insert(choice.id).inserted { throw .invalidArgument(field: field + ".id", reason: "\(choice.id) is given twice") }
            try validate(text: choice.label, field: "options.choices[].label")
            var optionIds = Set<String>()
            for option in choice.options where option.id.isEmpty || !optionIds.insert(option.id).inserted {
                throw .invalidArgument(field: field + ".options", reason: "option ids must be given once each and not be empty")
            }
            if !choice.values.contains(choice.initial) {
                throw .invalidArgument(field: field + ".initial", reason: "\(choice.initial) is not one of \(choice.values.joined(separator: ", "))")
            }
        }
    }

    private static func validate(presentationId: String?) throws(DialogError) {
        if let id = presentationId, id.isEmpty {
            throw .invalidArgument(field: "presentationId", reason: "must not be empty")
        }
        try validate(text: presentationId, field: "presentationId")
    }

    /// The most characters (Unicode code points, as JSON Schema's `maxLength` counts them) of a
    /// dialog's texts and ids. A title or a label is a line; the cap keeps what one client has
    /// the presenter shown (and a daemon queues for it) to a size a dialog can show.
    static let maximumTextLength = 4096

    /// (`field` is a literal: checking costs no string built, a dialog's worth of them a cycle.)
    private static func validate(text: String?, field: StaticString) throws(DialogError) {
        guard let text, text.utf8.count > maximumTextLength, text.unicodeScalars.count > maximumTextLength else { return }
        throw .invalidArgument(field: "\(field)", reason: "is longer than \(maximumTextLength) characters")
    }

    /// A name a file can have in a directory: no slash, no NUL, not `.` or `..`, at most 255 bytes.
    private static func validate(filename: String, field: String) throws(DialogError) {
        if filename.isEmpty || filename == "." || filename == ".." {
            throw .invalidArgument(field: field, reason: "is not a usable file name (\"\(filename)\")")
        }
        if filename.utf8.contains(UInt8(ascii: "/")) {
            throw .invalidArgument(field: field, reason: "must be a plain file name without \"/\" (\"\(filename)\")")
        }
        if filename.utf8.contains(0) {
            throw .invalidArgument(field: field, reason: "must not contain a NUL character (\\u0000): no file name can")
        }
        if filename.utf8.count > 255 {
            throw .invalidArgument(field: field, reason: "is longer than the 255 bytes a file name may have")
        }
    }

    /// A `path` source must be a regular file the client already has; with `allowingPipes` (a
    /// lazy document's snapshot), also a pipe the client feeds, read to its end. Never nothing
    /// or a folder. Reads the disk.
    static func validate(sourcePath path: FilePath, field: String, allowingPipes: Bool = false) throws(DialogError) {
        guard path.isAbsolute else {
            throw .invalidArgument(field: field, reason: "must be an absolute path (\(path))")
        }
        let status: FileStatus
        do {
            status = try FileStatus.of(path)
        } catch {
            throw .invalidArgument(field: field, reason: "cannot be used: \(error)")
        }
        switch status.kind {
        case .regular:
            return
        case .directory:
            throw .invalidArgument(field: field, reason: "is a folder, not a file (\(path))")
        default:
            if !allowingPipes { throw .invalidArgument(field: field, reason: "is not a regular file (\(path))") }
        }
    }

    private static func known(_ identifiers: [String], field: String, types: any ContentTypeOracle) throws(DialogError) {
        var unknown: [String] = []
        for identifier in identifiers where !types.isKnown(identifier) && !unknown.contains(identifier) {
            unknown.append(identifier)
        }
        if !unknown.isEmpty { throw .unknownContentTypes(field: field, identifiers: unknown) }
    }
}
