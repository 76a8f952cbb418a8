import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// The app's side of a dialog: presenting an importer, an exporter or a mover, and cancelling it.
    mutating func addDialogMethods() {
        answeredLater(PresentImporterRequest.self) { session, message, answer in
            let request = try ImporterRequest(message)
            session.present(answer) { .importer(request) }
        }
        // The documents' contents are resolved on the dialog queue: over the daemon a path is
        // opened through the client's grant, which reads the disk.
        answeredLater(PresentExporterRequest.self) { session, message, answer in
            session.present(answer) {
                .exporter(try ExporterRequest(message) { contents, field throws(ResponseError) in
                    try session.exportSource(contents, field: field)
                })
            }
        }
        // Each URL must be one the client holds a grant for, checked on the dialog queue (it
        // reads the disk) before anything is presented: a file it was never given is
        // `accessDenied`, and no presenter hears of the request.
        answeredLater(PresentMoverRequest.self) { session, message, answer in
            session.present(answer) {
                .mover(try MoverRequest(message) { url, field throws(ResponseError) in try session.grantedFile(url, field: field) })
            }
        }
        onReadLoop(CancelDialogRequest.self) { session, request in
            CancelDialogResult(cancelled: try session.server.engine.cancel(client: session.dialogClient, id: DialogID(rawValue: request.dialogId)))
        }
    }
}
