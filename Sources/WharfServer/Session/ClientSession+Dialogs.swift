import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfFileWriting
import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension ClientSession {
    /// The dialog engine's events for this client, as notifications: called through the
    /// client's outbox, in the engine's order, with no lock held.
    func deliver(_ event: DialogEvent) {
        if let ended = event.endedDialog {
            if server.options.acceptsPresenterConnections { server.hub.ended(ended) }
            letGo(of: ended)
        }
        switch event {
        case .presentationChanged(let id, let isPresented):
            send(PresentationChangedNotification(dialogId: id.rawValue, isPresented: isPresented))
        case .completed(let id, let kind, let files, let contentTypes, let selections):
            // Grants first: a client may resolve access the moment it reads the completion.
            let app = appIdentity
            for file in files where !file.isDestinationOnly {
                if let source = file.movedFrom {
                    moveAccess(of: source, to: file)
                    continue
                }
                server.access.grant(app: app, client: accessClient, path: file.path, identity: file.identity,
                                    birth: file.birth, isDirectory: file.isDirectory,
                                    readOnly: !file.forWriting, isSymlink: file.isSymlink)
            }
            send(DialogCompletedNotification(
                dialogId: id.rawValue, kind: kind.rawValue, outcome: .files(urls: files.map(\.url), contentTypes: contentTypes),
                filter: selections?.filter.map(Int64.init),
                choices: selections.flatMap { $0.choices.isEmpty ? nil : Dictionary($0.choices.map { ($0.id, $0.value) }) { a, _ in a } }))
        case .failed(let id, let kind, let failure):
            let info = DialogFailureInfo(code: failure.code.errorCode.rawValue, message: failure.message, url: failure.url)
            send(DialogCompletedNotification(dialogId: id.rawValue, kind: kind.rawValue, outcome: .failure(info)))
        case .cancelled(let id, let kind, let reason):
            send(DialogCancelledNotification(dialogId: id.rawValue, kind: kind.rawValue, reason: reason.rawValue))
        case .progress(let id, let written, let total):
            send(DialogProgressNotification(dialogId: id.rawValue, bytesWritten: written, totalBytes: total))
        case .snapshotNeeded(let id, let index, let contentType):
            requestSnapshot(ExporterSnapshotRequest(dialogId: id.rawValue, documentIndex: Int64(index), contentType: contentType))
        }
    }

    /// A mover moved `source` to `file`: the client's rights go with it, and the bookmarks of
    /// it follow it (``AccessStore/moved(app:client:source:to:identity:birth:)``). The file is
    /// moved whatever happens here: a store that cannot record the bookmarks' new place is
    /// logged (they are then found again only if the file went to a folder beside its old one).
    private func moveAccess(of source: MoverFile, to file: ChosenFile) {
        let granted = AccessStore.GrantedFile(path: source.path, identity: source.identity, birth: source.birth,
                                              isDirectory: source.isDirectory, isSymlink: source.isSymlink,
                                              readOnly: source.readOnly)
        do {
            try server.access.moved(app: appIdentity, client: accessClient, source: granted, to: file.path,
                                    identity: file.identity, birth: file.birth)
        } catch {
            logger.error("\(source.path) was moved to \(file.path), but its bookmarks could not follow it: \(error)")
        }
    }

    func send<N: NotificationMessage>(_ notification: N) {
        connection.send(notification: N.method, params: notification.json)
    }

    /// `exporter/snapshot`: the client produces a lazy document's bytes now that the human has
    /// chosen where and as what. Its answer is handed to the engine on the session's dialog queue.
    private func requestSnapshot(_ request: ExporterSnapshotRequest) {
        let (engine, client) = (server.engine, dialogClient)
        let id = DialogID(rawValue: request.dialogId)
        let index = Int(request.documentIndex)
        connection.send(request: ExporterSnapshotRequest.method, params: request.json) { result in
            self.run(on: .dialogs) {
                do {
                    let contents = try DocumentContents(json: try result.get())
                    let source = try self.exportSource(contents, field: "result")
                    try DialogEngine.checkSnapshot(source, field: "result.path")
                    try? engine.provideSnapshot(client: client, id: id, documentIndex: index, source: source)
                } catch {
                    let reason = (error as? ResponseError)?.message ?? (error as? ProtocolError)?.message ?? "\(error)"
                    _ = try? engine.snapshotFailed(client: client, id: id, documentIndex: index,
                                                   message: "exporter/snapshot for document \(index) failed: \(reason)")
                }
            }
        }
    }
}

private extension DialogEvent {
    /// The dialog this event ends, if it is an ending.
    var endedDialog: DialogID? {
        switch self {
        case .completed(let id, _, _, _, _), .failed(let id, _, _), .cancelled(let id, _, _): id
        case .presentationChanged, .progress, .snapshotNeeded: nil
        }
    }
}

// MARK: Presenting

/// A `present…` request made from its params, before the engine has checked it.
enum DialogRequest: Sendable {
    case importer(ImporterRequest)
    case exporter(ExporterRequest)
    case mover(MoverRequest)
}

extension ClientSession {
    /// Presents a dialog with this client's presenter, on the session's dialog queue (the engine
    /// reads the disk and the remembered folders). In this order, so that a request is told
    /// what is wrong with it first: `make` builds the request (a params error), the engine checks
    /// it (a params error, once), a presenter is found (`noPresenter`), over the daemon an
    /// exporter's document bytes are charged to its app (`tooManyDialogs`), and the engine
    /// presents it. The answer, `{dialogId}` (or `presenterBacklog`), goes out when the engine
    /// announces the dialog (``PresentAnnouncer``): before the presenter hears of it, so a
    /// `presenter/show` always follows the response that names its dialog. A request cancelled
    /// (`$/cancelRequest`) before its answer went out presents nothing: the client has its
    /// `-32800` and no dialog it could never address.
    func present(_ answer: Answer<PresentResult>, _ make: @escaping @Sendable () throws -> DialogRequest) {
        let (engine, types, scope) = (server.engine, contentTypeOracle, contentTypes)
        run(on: .dialogs) {
            guard !answer.reply.isAnswered else { return }
            do {
                let (client, app, isLive) = (self.dialogClient, self.appIdentity, { self.isRunning })
                switch try make() {
                case .importer(let request):
                    let checked = try DialogEngine.check(request, types: types)
                    let announcer = PresentAnnouncer(answer: answer, presenter: try self.presenter())
                    _ = try engine.present(client: client, app: app, request: checked, presenter: announcer.presenter,
                                           types: types, isLive: isLive, announcer: announcer)
                case .exporter(let request):
                    let checked = try DialogEngine.check(request, types: types)
                    let presenter = try self.presenter()
                    // Held from the moment the dialog is announced until it ends.
                    let charge = try self.chargeDocumentBytes(request)
                    let announcer = PresentAnnouncer(answer: answer, presenter: presenter, keeping: charge.map { (self, $0) })
                    _ = try engine.present(client: client, app: app, request: checked, presenter: presenter,
                                           types: types, isLive: isLive, announcer: announcer)
                case .mover(let request):
                    let checked = try DialogEngine.check(request, types: types)
                    let announcer = PresentAnnouncer(answer: answer, presenter: try self.presenter())
                    _ = try engine.present(client: client, app: app, request: checked, presenter: announcer.presenter,
                                           types: types, isLive: isLive, announcer: announcer)
                }
            } catch DialogError.unknownContentTypes(let field, let identifiers) {
                // Say which identifier a MIME type given in its place stands for.
                answer.fail(scope.unknownTypes(identifiers, field: field))
            } catch {
                answer.fail(error)
            }
        }
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

/// Tells the client its dialog's id, as the engine registers the dialog and before its
/// presenter shows it; or, when the dialog cannot be shown after all, tells it why. The
/// presenter connection takes a dialog only within the app's budget
/// (``ConnectionPresenter/admit(_:)``): refused, the request is answered `presenterBacklog`.
/// False when the client was not told (refused, or the request was cancelled meanwhile): the
/// engine then withdraws the dialog.
struct PresentAnnouncer: DialogAnnouncer {
    let answer: Answer<PresentResult>
    let presenter: any DialogPresenter
    /// What the session keeps until the dialog ends (an exporter's charged document bytes).
    var keeping: (session: ClientSession, value: any Sendable)?

    func announce(_ dialog: PresentedDialog) -> Bool {
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
        if let keeping { keeping.session.keep(keeping.value, until: dialog.id) }
        return true
    }
}

// MARK: Presenting for others

extension ClientSession {
    /// The way to answer `dialogId` as its presenter, and the queue to answer on, which only a
    /// dialog this client shows itself has: `notPresenter` when the dialog is the client's but another presenter shows
    /// it, `dialogNotFound` or `dialogEnded` when it is not one of its open dialogs.
    ///
    /// The daemon's presenter connection answers the dialogs forwarded to it: their answers run
    /// on the owning client's dialog queue (in that client's order, and beside other clients'),
    /// its own dialogs' on its own.
    func route(for dialogId: String) throws(DialogError) -> (DialogResponder, SerialQueue) {
        let id = DialogID(rawValue: dialogId)
        if isPresenterConnection, let forwarded = try server.hub.responder(for: id, presenter: self) {
            return forwarded
        }
        return (try server.engine.responder(client: dialogClient, id: id, for: frontend), dialogWork)
    }
}
