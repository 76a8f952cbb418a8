import WharfDialogs
import WharfFileWriting
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
                    if let filter = request.filter, request.cursor == nil { try responder.selectFilter(Int(filter)) }
                    return ListDirectoryResult(try responder.list(directory: request.directory, cursor: request.cursor,
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
                    if try responder.kind() == .mover {
                        try Self.move(request, responder) { answer.succeed(Empty()) }
                        return
                    }
                    if request.conflictResolution != nil {
                        throw ResponseError.invalidParams("conflictResolution: only a mover's choice settles taken names")
                    }
                    // The person's selections go first: the pick is judged by the filter in force.
                    if let filter = request.filter { try responder.selectFilter(Int(filter)) }
                    for (id, value) in (request.choices ?? [:]).sorted(by: { $0.key < $1.key }) {
                        try responder.setChoice(id, to: value)
                    }
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

extension MethodTable {
    /// A mover's `dialog/choose`: the folder (`url`, or `urls` holding only it) and, when the
    /// human was asked about taken names, the answer. A frontend can ask: a taken name without
    /// an answer is refused `nameConflict` and the dialog stays open.
    static func move(_ request: ChooseRequest, _ responder: DialogResponder, accepted: @escaping @Sendable () -> Void) throws {
        let folder: String
        switch request.choice {
        case .files(let urls):
            guard urls.count == 1 else {
                throw ResponseError.invalidParams("urls: a mover's choice is one folder (\(urls.count) given); send it as url")
            }
            folder = urls[0]
        case .destination(let url, let contentType, let overwrite):
            if contentType != nil { throw ResponseError.invalidParams("contentType: a mover moves files as they are") }
            if overwrite {
                throw ResponseError.invalidParams("overwrite: a mover settles taken names with conflictResolution (replace or keepBoth)")
            }
            folder = url
        }
        let resolution: MoveConflictResolution? = switch request.conflictResolution {
        case "replace": .replace
        case "keepBoth": .keepBoth
        default: nil
        }
        try responder.move(folder: folder, resolution: resolution, canAsk: true, accepted: accepted)
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
