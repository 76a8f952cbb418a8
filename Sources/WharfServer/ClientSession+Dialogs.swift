import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfJSON
import WharfJSONRPC
import WharfSystem

extension ClientSession {
    /// This session as the dialog engine knows it.
    var dialogClient: WharfDialogs.ClientID { WharfDialogs.ClientID(id) }
    /// This session as the access store knows it.
    var accessClient: WharfAccess.ClientID { WharfAccess.ClientID(String(id)) }

    /// The calling client's content types: the system's plus its own declarations.
    var contentTypes: ContentTypeScope { types.withValue { $0 } }

    /// Adds the client's own types (all or none: `declare` validates before it changes anything).
    func declareContentTypes(_ declarations: [TypeDeclaration]) throws {
        try types.withValue { scope in try scope.declare(declarations) }
    }

    /// Who shows this client's dialogs: the client itself when it said
    /// `capabilities.presentsDialogs`, else the server's `--presenter script:FILE`.
    func presenter() throws(ResponseError) -> any DialogPresenter {
        if state.withValue({ $0.presentsDialogs }) { return FrontendPresenter(connection: connection) }
        if let script = server.scriptPresenter { return script }
        throw ResponseError(.noPresenter, """
            no presenter: say "capabilities": {"presentsDialogs": true} in initialize and draw the dialog \
            yourself (presenter/show), or start wharf with --presenter script:FILE
            """)
    }

    /// The dialog engine's events for this client, as notifications. Called under the engine's
    /// lock, in the engine's order.
    func deliver(_ event: DialogEvent) {
        switch event {
        case .presentationChanged(let id, let isPresented):
            connection.send(notification: "dialog/presentationChanged", params: ["dialogId": .string(id.rawValue), "isPresented": .bool(isPresented)])
        case .completed(let id, let kind, let files, let contentTypes):
            // Grants first: a client may resolve access the moment it reads the completion.
            let app = appIdentity
            for file in files {
                server.access.grant(app: app, client: accessClient, path: file.path, identity: file.identity,
                                    readOnly: !file.forWriting, isSymlink: file.isSymlink)
            }
            var params: JSONObject = ["dialogId": .string(id.rawValue), "kind": .string(kind.rawValue), "urls": .array(files.map { .string($0.url) })]
            if let contentTypes { params["contentTypes"] = .array(contentTypes.map(JSON.string)) }
            connection.send(notification: "dialog/completed", params: .object(params))
        case .failed(let id, let kind, let failure):
            var error: JSONObject = ["code": .int(failure.code.errorCode.rawValue), "message": .string(failure.message)]
            if let url = failure.url { error["url"] = .string(url) }
            connection.send(notification: "dialog/completed", params: ["dialogId": .string(id.rawValue), "kind": .string(kind.rawValue), "error": .object(error)])
        case .cancelled(let id, let kind, let reason):
            connection.send(notification: "dialog/cancelled", params: ["dialogId": .string(id.rawValue), "kind": .string(kind.rawValue), "reason": .string(reason.rawValue)])
        case .progress(let id, let written, let total):
            connection.send(notification: "dialog/progress", params: ["dialogId": .string(id.rawValue), "bytesWritten": .int(written), "totalBytes": .int(total)])
        case .snapshotNeeded(let id, let index, let contentType):
            requestSnapshot(id, index, contentType)
        }
    }

    /// `exporter/snapshot`: the client produces a lazy document's bytes now that the human has
    /// chosen where and as what. The answer is handed to the engine off the read loop and off
    /// the engine's lock (this runs under it).
    private func requestSnapshot(_ id: DialogID, _ index: Int, _ contentType: String) {
        let engine = server.engine
        let client = dialogClient
        let params: JSON = ["dialogId": .string(id.rawValue), "documentIndex": .int(Int64(index)), "contentType": .string(contentType)]
        connection.send(request: "exporter/snapshot", params: params) { [server] result in
            server.background {
                do {
                    let answer = try result.get()
                    guard case .object(let object) = answer,
                          let source = try DialogParams.contents(Params(object: object, path: "result"))
                    else { throw ResponseError.invalidParams("result: expected {text}, {base64} or {path}") }
                    try? engine.provideSnapshot(client: client, id: id, documentIndex: index, source: source)
                } catch {
                    let reason = (error as? ResponseError)?.message ?? "\(error)"
                    _ = try? engine.snapshotFailed(client: client, id: id, documentIndex: index,
                                                   message: "exporter/snapshot for document \(index) failed: \(reason)")
                }
            }
        }
    }
}

extension DialogFailure.Code {
    /// The protocol's number for each way a dialog can fail.
    var errorCode: ErrorCode {
        switch self {
        case .presenterFailed: return .presenterFailed
        case .snapshotFailed: return .snapshotFailed
        case .fileExists: return .fileExists
        default: return .fileOperationFailed
        }
    }
}

/// The client's own UI as the presenter: `presenter/show` when a dialog opens, `presenter/hide`
/// when the app side ends it. The client answers with `dialog/choose` or `dialog/dismiss`.
struct FrontendPresenter: DialogPresenter {
    let connection: Connection

    func show(_ dialog: PresentedDialog) {
        let importer = dialog.importer ?? .init(allowedContentTypes: [], allowsMultipleSelection: false)
        var params: JSONObject = [
            "dialogId": .string(dialog.id.rawValue),
            "kind": .string(dialog.kind.rawValue),
            "title": dialog.title.map(JSON.string) ?? .null,
            "message": dialog.message.map(JSON.string) ?? .null,
            "confirmationLabel": dialog.confirmationLabel.map(JSON.string) ?? .null,
            "allowedContentTypes": .array(importer.allowedContentTypes.map(JSON.string)),
            "allowsMultipleSelection": .bool(importer.allowsMultipleSelection),
            "filters": [
                "globs": .array(dialog.filters.globs.map(JSON.string)),
                "mimeTypes": .array(dialog.filters.mimeTypes.map(JSON.string)),
                "directories": .bool(dialog.filters.directories),
            ],
            "directory": .string(FileURL.from(path: dialog.directory)),
            "browserOptions": .array(dialog.browserOptions.names.map(JSON.string)),
        ]
        if let exporter = dialog.exporter {
            params["filename"] = exporter.filename.map(JSON.string) ?? .null
            params["filenames"] = .array(exporter.filenames.map(JSON.string))
            params["contentTypes"] = .array(exporter.contentTypes.map(JSON.string))
            params["filenameLabel"] = exporter.filenameLabel.map(JSON.string) ?? .null
            params["documentCount"] = .int(Int64(exporter.documentCount))
        }
        connection.send(notification: "presenter/show", params: .object(params))
    }

    func hide(_ id: DialogID) {
        connection.send(notification: "presenter/hide", params: ["dialogId": .string(id.rawValue)])
    }
}

extension DialogError {
    /// The protocol error for an engine error: -32602 for bad params, Wharf's own codes for
    /// the rest, with the ids a client needs in `data`.
    var response: ResponseError {
        if isInvalidParams { return .invalidParams(description) }
        switch self {
        case .alreadyPresented(_, let dialog):
            return ResponseError(.alreadyPresented, description, data: ["dialogId": .string(dialog.rawValue)])
        case .tooManyDialogs:
            return ResponseError(.tooManyDialogs, description)
        case .unknownDialog:
            return ResponseError(.dialogNotFound, description)
        case .alreadyEnded, .choiceAlreadyMade:
            return ResponseError(.dialogEnded, description)
        case .rejectedChoice(let url, _):
            return ResponseError(.choiceRejected, description, data: ["url": .string(url)])
        case .contentTypeNotOffered:
            return ResponseError(.choiceRejected, description)
        case .fileExists(let url):
            return ResponseError(.fileExists, description, data: ["url": .string(url)])
        case .cannotList:
            return ResponseError(.fileOperationFailed, description)
        case .wrongKind, .invalidCursor, .notAwaitingSnapshot:
            return .invalidParams(description)
        default:
            return .invalidParams(description)
        }
    }
}
