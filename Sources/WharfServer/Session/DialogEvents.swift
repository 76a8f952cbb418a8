import WharfAccess
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
        case .completed(let id, let kind, let files, let contentTypes):
            // Grants first: a client may resolve access the moment it reads the completion.
            let app = appIdentity
            for file in files {
                if let source = file.movedFrom {
                    moveAccess(of: source, to: file)
                    continue
                }
                server.access.grant(app: app, client: accessClient, path: file.path, identity: file.identity,
                                    birth: file.birth, isDirectory: file.isDirectory,
                                    readOnly: !file.forWriting, isSymlink: file.isSymlink)
            }
            send(DialogCompletedNotification(dialogId: id.rawValue, kind: kind.rawValue,
                                             outcome: .files(urls: files.map(\.url), contentTypes: contentTypes)))
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
        case .completed(let id, _, _, _), .failed(let id, _, _), .cancelled(let id, _, _): id
        case .presentationChanged, .progress, .snapshotNeeded: nil
        }
    }
}
