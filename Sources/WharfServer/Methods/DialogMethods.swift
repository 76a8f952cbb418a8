import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// The app's side of a dialog: presenting an importer or an exporter, and cancelling it.
    mutating func addDialogMethods() {
        answeredLater(PresentImporterRequest.self) { session, message, answer in
            let request = try ImporterRequest(message)
            session.present(answer) { engine, presenter, types, announce throws(DialogError) in
                _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                       presenter: presenter, types: types, announce: announce)
            }
        }
        answeredLater(PresentExporterRequest.self) { session, message, answer in
            let request = try ExporterRequest(message)
            session.present(answer) { engine, presenter, types, announce throws(DialogError) in
                _ = try engine.present(client: session.dialogClient, app: session.appIdentity, request: request,
                                       presenter: presenter, types: types, announce: announce)
            }
        }
        onReadLoop(CancelDialogRequest.self) { session, request in
            CancelDialogResult(cancelled: try session.server.engine.cancel(client: session.dialogClient, id: DialogID(rawValue: request.dialogId)))
        }
    }
}

extension ClientSession {
    typealias Present = @Sendable (
        DialogEngine, any DialogPresenter, any ContentTypeOracle, @escaping @Sendable (DialogID) -> Void
    ) throws(DialogError) -> Void

    /// Presents a dialog with this client's presenter, on the session's dialog queue (the engine
    /// reads the disk and the remembered folders). The answer, `{dialogId}`, goes out when the
    /// engine announces the dialog: before the presenter hears of it, so a `presenter/show`
    /// always follows the response that names its dialog.
    func present(_ answer: Answer<PresentResult>, _ body: @escaping Present) {
        let presenter: any DialogPresenter
        do {
            presenter = try self.presenter()
        } catch {
            answer.fail(error)
            return
        }
        let (engine, types, scope) = (server.engine, contentTypeOracle, contentTypes)
        run(on: .dialogs) {
            do throws(DialogError) {
                try body(engine, presenter, types) { id in answer.succeed(PresentResult(dialogId: id.rawValue)) }
            } catch .unknownContentTypes(let field, let identifiers) {
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
        return presenter
    }

    /// The engine's view of this client's content types, snapshotted for one dialog.
    var contentTypeOracle: any ContentTypeOracle { ContentTypeOracleAdapter(scope: contentTypes) }
}
