import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

extension MethodTable {
    /// The presenter's side of a dialog, for a client that draws its own (`presentsDialogs`):
    /// listing folders, and the human's answer. Only the presenter of a dialog answers it: a
    /// client whose dialog a script or the desktop shows gets `notPresenter`, and ends it, as
    /// the app, with `cancel`.
    mutating func addPresenterMethods() {
        // About 300 bytes of answer per entry.
        onWorker(ListDirectoryRequest.self, on: .dialogs, reserving: { 320 * min(Int($0.limit ?? 1000), 10_000) }) { session, request in
            let listing = try session.responder(for: request.dialogId).list(
                directory: request.directory, cursor: request.cursor, limit: request.limit.map { Int($0) })
            return ListDirectoryResult(listing)
        }
        // Each answer goes out when the engine accepts the input: before the dialog's
        // `dialog/presentationChanged` and its ending.
        answeredLater(ChooseRequest.self) { session, request, answer in
            let responder = try session.responder(for: request.dialogId)
            session.run(on: .dialogs) {
                do {
                    switch request.choice {
                    case .files(let urls):
                        try responder.choose(urls: urls) { answer.succeed(Empty()) }
                    case .destination(let url, let contentType, let overwrite):
                        try responder.save(url: url, contentType: contentType, overwrite: overwrite) { answer.succeed(Empty()) }
                    }
                } catch {
                    answer.fail(error)
                }
            }
        }
        answeredLater(DismissRequest.self) { session, request, answer in
            let responder = try session.responder(for: request.dialogId)
            session.run(on: .dialogs) {
                do {
                    try responder.dismiss { answer.succeed(Empty()) }
                } catch {
                    answer.fail(error)
                }
            }
        }
        answeredLater(FailDialogRequest.self) { session, request, answer in
            let responder = try session.responder(for: request.dialogId)
            session.run(on: .dialogs) {
                do {
                    try responder.fail("the presenter failed: \(request.message)") { answer.succeed(Empty()) }
                } catch {
                    answer.fail(error)
                }
            }
        }
    }
}

extension ClientSession {
    /// The way to answer `dialogId` as its presenter, which only a dialog this client shows
    /// itself has: `notPresenter` when the dialog is the client's but another presenter shows
    /// it, `dialogNotFound` or `dialogEnded` when it is not one of its open dialogs.
    func responder(for dialogId: String) throws(DialogError) -> DialogResponder {
        let id = DialogID(rawValue: dialogId)
        if isPresenterConnection, let forwarded = try server.hub.responder(for: id, presenter: self) {
            return forwarded
        }
        return try server.engine.responder(client: dialogClient, id: id, for: frontend)
    }
}

extension ListDirectoryResult {
    init(_ listing: DirectoryListing) {
        self.init(
            directory: FileURL.from(path: listing.directory),
            parent: listing.parent.map { FileURL.from(path: $0) },
            entries: listing.entries.map(DirectoryEntryInfo.init),
            nextCursor: listing.nextCursor
        )
    }
}

extension DirectoryEntryInfo {
    init(_ entry: DirectoryEntry) {
        self.init(name: entry.displayName, url: entry.url, isDirectory: entry.isDirectory, isPackage: entry.isPackage,
                  isHidden: entry.isHidden, isSymlink: entry.isSymlink, contentType: entry.contentType, size: entry.size,
                  modified: ISO8601.format(entry.modified), enabled: entry.enabled)
    }
}
