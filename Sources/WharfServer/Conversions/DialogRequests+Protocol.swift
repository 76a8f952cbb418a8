import WharfDialogs
import WharfFileWriting
import WharfJSONRPC
import WharfProtocol
import WharfSystem

// The protocol's present requests as the dialog engine's requests. The protocol types have
// checked the shape; what is checked here is what needs the system (paths, dates), and the
// engine checks the meaning (types, documents).

extension ImporterRequest {
    init(_ request: PresentImporterRequest) throws(ResponseError) {
        self.init(
            allowedContentTypes: request.allowedContentTypes,
            allowsMultipleSelection: request.allowsMultipleSelection,
            presentationId: request.presentationId,
            options: try DialogOptions(request.options, parentWindow: request.parentWindow)
        )
    }
}

extension MoverRequest {
    /// `grant` finds each URL among the client's grants (``ClientSession/grantedFile(_:field:)``).
    init(_ request: PresentMoverRequest, grant: (String, _ field: String) throws(ResponseError) -> MoverFile) throws(ResponseError) {
        var files: [MoverFile] = []
        for (index, url) in request.urls.enumerated() {
            files.append(try grant(url, "urls[\(index)]"))
        }
        self.init(files: files, presentationId: request.presentationId,
                  options: try DialogOptions(request.options, parentWindow: request.parentWindow))
    }
}

/// How a session turns a document's `contents` into what is exported (``ClientSession/exportSource(_:field:)``).
typealias ContentsResolver = (DocumentContents, _ field: String) throws(ResponseError) -> ExportSource

extension ExporterRequest {
    init(_ request: PresentExporterRequest, contents resolve: ContentsResolver) throws(ResponseError) {
        var documents: [ExportDocument] = []
        for (index, document) in request.documents.enumerated() {
            documents.append(ExportDocument(
                filename: document.filename,
                writableContentTypes: document.writableContentTypes,
                contents: try document.contents.map { contents throws(ResponseError) in
                    try resolve(contents, "documents[\(index)].contents")
                }
            ))
        }
        self.init(
            documents: documents,
            contentTypes: request.contentType.map(ExportContentTypes.contentType) ?? .contentTypes(request.contentTypes ?? []),
            defaultFilename: request.defaultFilename,
            presentationId: request.presentationId,
            options: try DialogOptions(request.options, parentWindow: request.parentWindow),
            destinationOnly: request.destinationOnly ?? false,
            savesIntoFolder: request.savesIntoFolder ?? false
        )
    }
}

extension ExportSource {
    /// A document's bytes, or a snapshot's: text, base64, or a file to copy. A descriptor
    /// comes only over the daemon's socket (``ClientSession/exportSource(_:field:)``).
    init(_ contents: DocumentContents, field: String) throws(ResponseError) {
        switch contents {
        case .descriptor:
            throw .invalidParams("\(field).fd: descriptors can be passed only over the daemon's socket (wharf --listen); "
                + "send text, base64 or a path")
        case .text(let text):
            self = .bytes(Array(text.utf8))
        case .base64(let encoded):
            guard let bytes = Base64.decode(encoded) else {
                throw .invalidParams("\(field).base64: not valid base64 (RFC 4648, padded)")
            }
            self = .bytes(bytes)
        case .path(let raw):
            guard let path = FileURL.pathOrURL(raw) else {
                throw .invalidParams("\(field).path: expected an absolute path or a file: URL, got \(raw)")
            }
            self = .file(path: path)
        }
    }
}

extension DialogOptions {
    init(_ options: DialogOptionsParams, parentWindow: String?) throws(ResponseError) {
        var defaultDirectory: FilePath?
        if let raw = options.defaultDirectory {
            guard let path = FileURL.pathOrURL(raw) else {
                throw .invalidParams("options.defaultDirectory: expected an absolute path or a file: URL, got \(raw)")
            }
            defaultDirectory = path
        }
        var browserOptions = BrowserOptions()
        for name in options.browserOptions {
            // The protocol type has already refused names it does not know.
            if let option = BrowserOptions(name: name) { browserOptions.insert(option) }
        }
        self.init(
            defaultDirectory: defaultDirectory,
            title: options.title,
            message: options.message,
            confirmationLabel: options.confirmationLabel,
            browserOptions: browserOptions,
            urlEnabled: try options.urlEnabled.map { predicate throws(ResponseError) in
                try URLPredicate(predicate, path: "options.urlEnabled")
            },
            importsUnresolvedAliases: options.importsUnresolvedAliases,
            customizationId: options.customizationId,
            timeoutMs: options.timeoutMs.map { Int($0) },
            filenameLabel: options.filenameLabel,
            parentWindow: parentWindow,
            filters: try options.filters.enumerated().map { index, filter throws(ResponseError) in
                DialogFilter(name: filter.name, predicate: try URLPredicate(filter.predicate, path: "options.filters[\(index)].predicate"))
            },
            currentFilter: Int(options.currentFilter ?? 0),
            choices: options.choices.map { choice in
                DialogChoice(id: choice.id, label: choice.label,
                             options: choice.options.map { DialogChoice.Option(id: $0.id, label: $0.label) }, initial: choice.initial)
            }
        )
    }
}

extension URLPredicate {
    /// The declarative stand-in for `fileDialogURLEnabled`'s closure.
    init(_ predicate: URLPredicateParams, path: String) throws(ResponseError) {
        func each(_ operands: [URLPredicateParams], _ name: String) throws(ResponseError) -> [URLPredicate] {
            var result: [URLPredicate] = []
            for (index, operand) in operands.enumerated() {
                result.append(try URLPredicate(operand, path: "\(path).\(name)[\(index)]"))
            }
            return result
        }
        switch predicate {
        case .all(let operands): self = .all(try each(operands, "all"))
        case .any(let operands): self = .any(try each(operands, "any"))
        case .not(let operand): self = .not(try URLPredicate(operand, path: "\(path).not"))
        case .nameMatches(let pattern): self = .nameMatches(pattern)
        case .pathMatches(let pattern): self = .pathMatches(pattern)
        case .conformsTo(let identifier): self = .conformsTo(identifier)
        case .sizeAtMost(let size): self = .sizeAtMost(size)
        case .sizeAtLeast(let size): self = .sizeAtLeast(size)
        case .modifiedAfter(let text):
            guard let seconds = ISO8601.secondsSinceEpoch(text) else {
                throw .invalidParams("\(path).modifiedAfter: expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got \(text)")
            }
            self = .modifiedAfter(seconds)
        case .isDirectory(let flag): self = .isDirectory(flag)
        case .isHidden(let flag): self = .isHidden(flag)
        }
    }
}
