import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// The app's side of a dialog: presenting an importer or an exporter, and cancelling it.
    mutating func addDialogMethods() {
        answeredLater(PresentImporterRequest.self) { session, message, answer in
            let request = try ImporterRequest(message)
            session.present(answer, prepare: { request }, validate: DialogEngine.validate) { engine, presenter, request, types, announce in
                _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                       presenter: presenter, types: types, isLive: { session.isRunning }, announce: announce)
            }
        }
        // The documents' contents are resolved on the dialog queue: over the daemon a path is
        // opened through the client's grant, which reads the disk.
        // Over the daemon its documents' bytes count against the app's budget for as long as the
        // dialog is open: kept by the session from the moment the dialog is announced. The
        // engine's checks come first, so a request with bad params is told so, budget or not.
        answeredLater(PresentExporterRequest.self) { session, message, answer in
            session.present(answer, prepare: {
                try ExporterRequest(message) { contents, field throws(ResponseError) in try session.exportSource(contents, field: field) }
            }, validate: DialogEngine.validate) { engine, presenter, request, types, announce in
                if session.countsDocumentBytes(of: request) { try DialogEngine.validate(request, types: types) }
                let charge = try session.chargeDocumentBytes(request)
                _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                       presenter: presenter, types: types, isLive: { session.isRunning }) { dialog in
                    guard announce(dialog) else { return false }
                    if let charge { session.keep(charge, until: dialog.id) }
                    return true
                }
            }
        }
        // Each URL must be one the client holds a grant for, checked on the dialog queue (it
        // reads the disk) before anything is presented: a file it was never given is
        // `accessDenied`, and no presenter hears of the request.
        answeredLater(PresentMoverRequest.self) { session, message, answer in
            session.present(answer, prepare: {
                try MoverRequest(message) { url, field throws(ResponseError) in try session.grantedFile(url, field: field) }
            }, validate: DialogEngine.validate) { engine, presenter, request, types, announce in
                _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                       presenter: presenter, types: types, isLive: { session.isRunning }, announce: announce)
            }
        }
        onReadLoop(CancelDialogRequest.self) { session, request in
            CancelDialogResult(cancelled: try session.server.engine.cancel(client: session.dialogClient, id: DialogID(rawValue: request.dialogId)))
        }
    }
}

extension ClientSession {
    typealias Present<Request> = @Sendable (
        DialogEngine, any DialogPresenter, Request, any ContentTypeOracle, @escaping @Sendable (PresentedDialog) -> Bool
    ) throws -> Void

    /// Presents a dialog with this client's presenter, on the session's dialog queue (the engine
    /// reads the disk and the remembered folders): `prepare` makes the request, then `body`
    /// presents it. A params error is answered before `noPresenter`: when nobody can present,
    /// `validate` (the engine's own checks) still gets to refuse the request first. The
    /// answer, `{dialogId}` (or `presenterBacklog`), goes out when the engine announces the
    /// dialog: before the presenter hears of it, so a `presenter/show` always follows the
    /// response that names its dialog. A request cancelled (`$/cancelRequest`) before its answer went out presents
    /// nothing: the client has its `-32800` and no dialog it could never address.
    func present<Request>(_ answer: Answer<PresentResult>, prepare: @escaping @Sendable () throws -> Request,
                          validate: @escaping @Sendable (Request, any ContentTypeOracle) throws(DialogError) -> Void,
                          _ body: @escaping Present<Request>) {
        let (engine, types, scope) = (server.engine, contentTypeOracle, contentTypes)
        run(on: .dialogs) {
            guard !answer.reply.isAnswered else { return }
            do {
                let request = try prepare()
                let presenter: any DialogPresenter
                do { presenter = try self.presenter() } catch {
                    try validate(request, types)
                    throw error
                }
                try body(engine, presenter, request, types) { dialog in
                    Self.announce(dialog, shownBy: presenter, answer)
                }
            } catch DialogError.unknownContentTypes(let field, let identifiers) {
                // Say which identifier a MIME type given in its place stands for.
                answer.fail(scope.unknownTypes(identifiers, field: field))
            } catch {
                answer.fail(error)
            }
        }
    }

    /// Answers the request with the dialog's id, unless the dialog cannot be shown: the
    /// presenter connection takes it only within the app's budget
    /// (``ConnectionPresenter/admit(_:)``), and refused, the request is answered
    /// `presenterBacklog` instead. False when the client was not told (refused, or the request
    /// was cancelled meanwhile): the engine withdraws the dialog.
    private static func announce(_ dialog: PresentedDialog, shownBy presenter: any DialogPresenter,
                                 _ answer: Answer<PresentResult>) -> Bool {
        let routed = presenter as? ConnectionPresenter
        do throws(ResponseError) {
            try routed?.admit(dialog)
        } catch {
            answer.fail(error)
            return false
        }
        guard answer.reply.answer(.success(PresentResult(dialogId: dialog.id.rawValue).json)) else {
            routed?.withdraw(dialog.id)
            return false
        }
        return true
    }

    /// Who shows this client's dialogs, or `noPresenter` saying why nobody can.
    func presenter() throws(ResponseError) -> any DialogPresenter {
        let choice = state.withValue { $0.presenter }
        guard let presenter = choice.presenter else {
            throw ResponseError(WharfErrorCode.noPresenter, choice.whyNone)
        }
        if let routed = presenter as? ConnectionPresenter, !routed.isAvailable {
            throw ResponseError(WharfErrorCode.noPresenter, choice.whyNone)
        }
        return presenter
    }

    /// The file `url` names, as a mover takes it: one this client holds a grant for, else
    /// `accessDenied` naming the field.
    func grantedFile(_ url: String, field: String) throws(ResponseError) -> MoverFile {
        do {
            let file = try server.access.grantedFile(client: accessClient, url: url)
            return MoverFile(path: file.path, identity: file.identity, birth: file.birth, isDirectory: file.isDirectory,
                             isSymlink: file.isSymlink, readOnly: file.readOnly)
        } catch {
            var response = error.response
            if case .accessDenied = error {
                response = ResponseError(WharfErrorCode.accessDenied, "\(field): \(error.description); a mover moves only files "
                    + "the client was given (a pick, an export, a resolved bookmark)")
            }
            throw response
        }
    }

    /// The engine's view of this client's content types, snapshotted for one dialog.
    var contentTypeOracle: any ContentTypeOracle { ContentTypeOracleAdapter(scope: contentTypes) }
}
