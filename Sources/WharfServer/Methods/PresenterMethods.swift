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
        answeredLater(ListDirectoryRequest.self) { session, request, answer in
            try answer.reserve(bytes: 320 * min(Int(request.limit ?? 1000), 10_000))
            let (responder, queue) = try session.route(for: request.dialogId)
            session.run(on: queue) {
                answer.run {
                    ListDirectoryResult(try responder.list(directory: request.directory, cursor: request.cursor,
                                                           limit: request.limit.map { Int($0) }, showHidden: request.showHidden))
                }
            }
        }
        // Each answer goes out when the engine accepts the input: before the dialog's
        // `dialog/presentationChanged` and its ending.
        answeredLater(ChooseRequest.self) { session, request, answer in
            let (responder, queue) = try session.route(for: request.dialogId)
            session.run(on: queue) {
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
            let (responder, queue) = try session.route(for: request.dialogId)
            session.run(on: queue) {
                do {
                    try responder.dismiss { answer.succeed(Empty()) }
                } catch {
                    answer.fail(error)
                }
            }
        }
        answeredLater(FailDialogRequest.self) { session, request, answer in
            let (responder, queue) = try session.route(for: request.dialogId)
            session.run(on: queue) {
                do {
                    try responder.fail("the presenter failed: \(request.message)") { answer.succeed(Empty()) }
                } catch {
                    answer.fail(error)
                }
            }
        }
    }
}

extension ListDirectoryResult {
    init(_ listing: DirectoryListing) {
        self.init(
            directory: FileURL.from(path: listing.directory),
            parent: listing.parent.map { FileURL.from(path: $0) },
            entries: listing.entries.map(DirectoryEntryInfo.init),
            nextCursor: listing.nextCursor,
            directoryEnabled: listing.folderChoice.map { $0 == .enabled },
            directoryDisabledReason: listing.folderChoice?.reason
        )
    }
}

extension DirectoryEntryInfo {
    init(_ entry: DirectoryEntry) {
        self.init(name: entry.displayName, url: entry.url, isDirectory: entry.isDirectory, isPackage: entry.isPackage,
                  isHidden: entry.isHidden, isSymlink: entry.isSymlink, contentType: entry.contentType, size: entry.size,
                  modified: ISO8601.format(entry.modified), enabled: entry.enabled, disabledReason: entry.disabledReason)
    }
}
