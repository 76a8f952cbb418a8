import WharfFileWriting
import WharfSystem

/// The dialog engine: every open dialog of every client, and the single place where each of
/// them ends.
///
/// One engine serves a whole server process; clients are told apart by ``ClientID`` and never
/// see each other's dialogs. It is thread-safe: the server calls it from its reader and worker
/// threads, timers fire on the scheduler's threads, exports finish on pool threads. One
/// internal lock serialises every state change, and a dialog ends through a single transition
/// under that lock, so when a `cancel`, a `choose`, a timeout and a finishing writer race,
/// exactly one of them wins and the others get a clear "already ended" answer.
///
/// **Nothing waits under the lock.** Under it the engine only decides; what follows from a
/// decision — the events for the sink, a presenter's `show`/`hide`, a folder to remember — is
/// posted to the owning client's ``Outbox`` and delivered, in order, once the lock is released.
/// A slow sink or presenter delays that client's own later deliveries and nothing else. The
/// sink and presenters may call back into the engine.
///
/// `@unchecked Sendable`: `state` is only read and written with `lock` held; the rest is set in `init`.
public final class DialogEngine: @unchecked Sendable {
    /// The most dialogs one client may have open at once.
    public let maxDialogsPerClient: Int
    /// Listing entries kept for paging, per client and in all: beyond these, the oldest
    /// listings are dropped, and paging through one re-reads its folder.
    public let listingCache: ListingCacheLimits
    let memory: (any DirectoryMemory)?
    let writer: any ExportWriting
    let mover: any FileMoving
    let scheduler: any DialogScheduler
    let homeDirectory: FilePath
    /// Receives every event, in order per client, outside the engine's lock.
    let sink: any DialogEventSink
    /// Told what a client asked for that could not be honoured but did not fail the request
    /// (a `defaultDirectory` that is not a folder), for the server's log.
    let notice: @Sendable (String) -> Void

    /// Guards `state`; also the condition ``waitForWrites(client:)`` waits on.
    let lock = ConditionLock()
    /// Only touched with `lock` held.
    var state = EngineState()

    /// - Parameters:
    ///   - memory: where `customizationId` directories are remembered; nil remembers nothing.
    ///   - writer: writes exported files (``AtomicExportWriter`` unless a test injects one).
    ///   - mover: moves a mover's files (``SystemFileMover`` unless a test injects one).
    ///   - scheduler: time for timeouts and the progress rate.
    ///   - homeDirectory: where dialogs open when nothing better is known.
    ///   - notice: hears of requests honoured otherwise than asked (see ``notice``).
    ///   - sink: see the type's documentation.
    public init(
        maxDialogsPerClient: Int = 64,
        listingCache: ListingCacheLimits = ListingCacheLimits(),
        memory: (any DirectoryMemory)? = nil,
        writer: any ExportWriting = AtomicExportWriter(),
        mover: any FileMoving = SystemFileMover(),
        scheduler: any DialogScheduler = TimerScheduler(),
        homeDirectory: FilePath = FilePath.home(),
        notice: @escaping @Sendable (String) -> Void = { _ in },
        sink: any DialogEventSink
    ) {
        self.maxDialogsPerClient = maxDialogsPerClient
        self.listingCache = listingCache
        self.memory = memory
        self.writer = writer
        self.mover = mover
        self.scheduler = scheduler
        self.homeDirectory = homeDirectory
        self.notice = notice
        self.sink = sink
    }

    // MARK: Ending dialogs from the app's side

    /// The app's `cancel`: ends the dialog with `cancelled(reason: .client)`.
    ///
    /// - Returns: true if the dialog had not ended yet (it is now ended, or, while its files are
    ///   being written, the writer has been told to stop and roll back; the ending follows
    ///   when it has, and is `completed` only if the writer had already put every file in
    ///   place). False if it had already ended.
    /// - Throws: ``DialogError/unknownDialog(_:)`` for an id this client never had.
    @discardableResult
    public func cancel(client: ClientID, id: DialogID) throws(DialogError) -> Bool {
        try changing(client) { () throws(DialogError) -> Bool in
            let record: DialogRecord
            do throws(DialogError) {
                record = try lookup(client: client, id: id)
            } catch {
                if case .alreadyEnded = error { return false }
                throw error
            }
            cancelLocked(record, reason: .client)
            return true
        }
    }

    /// The client went away: every dialog it has open ends with reason `disconnected`
    /// (exports being written are stopped and rolled back first; see
    /// ``waitForWrites(client:)`` to wait for that before the process exits).
    public func disconnect(client: ClientID) {
        changing(client) {
            guard let clientRecord = state.clients[client] else { return }
            clientRecord.isDisconnected = true
            for id in clientRecord.open {
                if let record = state.dialogs[id] { cancelLocked(record, reason: .disconnected) }
            }
            if clientRecord.open.isEmpty { state.clients[client] = nil }
        }
    }

    /// Blocks until no export of `client` (of any client, when nil) is being written, and
    /// everything the engine posted for it has been delivered. For the end of a session,
    /// after ``disconnect(client:)``, so rollbacks finish and the last events go out first.
    public func waitForWrites(client: ClientID? = nil) {
        lock.lock()
        while state.dialogs.values.contains(where: { $0.isWriting && (client == nil || $0.client == client) }) {
            lock.wait()
        }
        let outboxes = client.map { [state.outbox(for: $0)] } ?? Array(state.outboxes.values)
        lock.unlock()
        for outbox in outboxes { outbox.waitUntilDelivered() }
    }

    /// The client is gone for good: forget its outbox (after ``waitForWrites(client:)``).
    public func forget(client: ClientID) {
        lock.withLock {
            if state.clients[client] == nil { state.outboxes[client] = nil }
        }
    }

    /// The kind of `client`'s open dialog `id`.
    public func kind(client: ClientID, id: DialogID) throws(DialogError) -> DialogKind {
        try lock.withLock { () throws(DialogError) -> DialogKind in try lookup(client: client, id: id).kind }
    }

    /// How many dialogs `client` has open.
    public func openDialogCount(client: ClientID) -> Int {
        lock.withLock { state.clients[client]?.open.count ?? 0 }
    }

    /// The way for `presenter` to answer `client`'s open dialog `id`: what a presenter that
    /// gets its input from elsewhere (the client's own UI, over the protocol) asks for. Only
    /// the dialog's own presenter (the same object it was shown with) gets one.
    ///
    /// - Throws: ``DialogError/notPresenter(_:shownBy:)`` when another presenter shows the
    ///   dialog; ``DialogError/unknownDialog(_:)`` or ``DialogError/alreadyEnded(_:)``.
    public func responder(client: ClientID, id: DialogID, for presenter: any DialogPresenter) throws(DialogError) -> DialogResponder {
        try lock.withLock { () throws(DialogError) -> DialogResponder in
            let record = try lookup(client: client, id: id)
            guard (record.presenter as AnyObject) === (presenter as AnyObject) else {
                throw .notPresenter(id, shownBy: record.presenter.name)
            }
            return DialogResponder(engine: self, client: client, id: id)
        }
    }

    // MARK: Answers from the human (through the presenter)

    /// The human dismissed the dialog: `cancelled(reason: .user)` (SwiftUI calls
    /// `onCancellation`, not `onCompletion`). `accepted` is delivered first, in the client's
    /// order, before the ending (a frontend's answer to its `dialog/dismiss`).
    public func dismiss(client: ClientID, id: DialogID, accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            if let accepted { post(client, accepted) }
            record.isShowing = false
            end(record, .cancelled(.user))
        }
    }

    /// The presenter cannot serve the dialog (a script ran out of steps or its expectation
    /// failed; a frontend's own code failed): it ends with a `presenterFailed` failure carrying
    /// `message`. `accepted` is delivered before the ending.
    ///
    /// - Throws: as ``dismiss(client:id:accepted:)`` does.
    public func fail(client: ClientID, id: DialogID, message: String, accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try changing(client) { () throws(DialogError) in
            let record = try lookup(client: client, id: id)
            guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
            if let accepted { post(client, accepted) }
            record.isShowing = false
            end(record, .failed(DialogFailure(code: .presenterFailed, message: message)))
        }
    }

    // MARK: Internals shared by the importer, exporter and listing

    /// Runs `body` under the lock, then delivers what it posted for `client`.
    func changing<T, E: Error>(_ client: ClientID, _ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        let outbox = state.outbox(for: client)
        let result: Result<T, E>
        do throws(E) { result = .success(try body()) } catch { result = .failure(error) }
        lock.unlock()
        outbox.drain()
        return try result.get()
    }

    /// Lock held. Queues a delivery for `client`, after everything queued for it before.
    func post(_ client: ClientID, _ delivery: @escaping @Sendable () -> Void) {
        state.outbox(for: client).post(delivery)
    }

    /// Lock held. Queues an event for the sink; with `withdrawn`, one that is dropped if, by the
    /// time it is delivered, its dialog was withdrawn (``DialogRecord/withdrawn``).
    func emit(_ client: ClientID, _ event: DialogEvent, unlessWithdrawn withdrawn: Locked<Bool>? = nil) {
        let sink = sink
        post(client) {
            if withdrawn?.withValue({ $0 }) != true { sink.deliver(event, to: client) }
        }
    }

    /// Registers a checked dialog, shows it and arms its timeout. The announcement (the client's
    /// answer to its request) is delivered first, then the presenter's `show`: no event of the
    /// dialog can reach the client before it knows the dialog's id. The announcer is given the
    /// dialog as the presenter will be shown it, so that the server may still refuse it (the
    /// daemon does, when it would queue too much for its presenter connection); when it says
    /// the client was not told (refused, or its request was cancelled meanwhile), the dialog is
    /// withdrawn instead of shown. `isLive` is asked under the lock: a client whose session
    /// ended (it was disconnected, its dialogs ended) while this request was on its way is
    /// refused, with nothing left behind, rather than given a dialog nobody would ever end.
    func register(
        client: ClientID, app: String, kind: DialogKind, presentationId: String?, options: DialogOptions,
        directory: FilePath, presenter: any DialogPresenter, types: any ContentTypeOracle,
        rules: SelectionRules, exporter: ExporterPlan?, mover: MoverPlan? = nil, allowsMultipleSelection: Bool,
        isLive: () -> Bool,
        announcer: any DialogAnnouncer,
        presented: (DialogID, DialogResponder) -> PresentedDialog
    ) throws(DialogError) -> DialogID {
        try changing(client) { () throws(DialogError) -> DialogID in
            guard isLive() else {
                // The outbox this call made for a client already forgotten goes again; one still
                // delivering the session's last events stays, for `forget` to drop.
                if state.clients[client] == nil, state.outboxes[client]?.isIdle == true { state.outboxes[client] = nil }
                throw .clientEnded
            }
            let clientRecord = state.clients[client] ?? {
                let fresh = ClientRecord()
                state.clients[client] = fresh
                return fresh
            }()
            if let presentationId, let open = clientRecord.presentations[presentationId] {
                throw .alreadyPresented(presentationId: presentationId, dialog: open)
            }
            guard clientRecord.open.count < maxDialogsPerClient else { throw .tooManyDialogs(limit: maxDialogsPerClient) }

            state.dialogCounter += 1
            let id = DialogID(rawValue: "dlg-\(state.dialogCounter)")
            let record = DialogRecord(
                id: id, client: client, app: app, kind: kind, presentationId: presentationId,
                customizationId: options.customizationId, presenter: presenter, types: types, rules: rules,
                allowsMultipleSelection: allowsMultipleSelection,
                importsUnresolvedAliases: options.importsUnresolvedAliases, exporter: exporter, directory: directory)
            record.mover = mover
            if !options.filters.isEmpty {
                record.filters = options.filters
                record.selectedFilter = options.currentFilter
                record.rules.filter = .selected(options.filters[options.currentFilter])
            }
            record.choices = options.choices
            record.choiceValues = options.choices.map { DialogSelections.Value(id: $0.id, value: $0.initial) }
            state.dialogs[id] = record
            clientRecord.open.append(id)
            if let presentationId { clientRecord.presentations[presentationId] = id }
            clientRecord.isDisconnected = false

            let dialog = presented(id, DialogResponder(engine: self, client: client, id: id))
            let withdrawn = record.withdrawn
            post(client) { [weak self] in
                if announcer.announce(dialog) {
                    presenter.show(dialog)
                } else {
                    withdrawn.withValue { $0 = true }
                    self?.withdraw(client: client, id: id)
                }
            }
            if let timeout = options.timeoutMs {
                record.cancelTimeout = scheduler.after(milliseconds: timeout) { [weak self] in self?.expire(client: client, id: id) }
            }
            return id
        }
    }

    /// Removes a dialog the client was never told of (the request that asked for it was
    /// cancelled before its answer went out), as if it had never been presented: no presenter
    /// saw it and no event names it, since nobody could ever address it. Call without the lock.
    func withdraw(client: ClientID, id: DialogID) {
        changing(client) {
            guard let record = state.dialogs[id], record.client == client else { return }
            state.dialogs[id] = nil
            record.stopTimeout()
            dropListings(of: record)
            record.isShowing = false
            if let clientRecord = state.clients[client] {
                clientRecord.close(id, presentationId: record.presentationId)
                if clientRecord.isDisconnected && clientRecord.open.isEmpty { state.clients[client] = nil }
            }
            lock.broadcast()
        }
    }

    /// The dialog's `timeoutMs` ran out. It ends if it is still waiting for the human or for the
    /// client's snapshots; an export already being written, or a move under way, is left to
    /// finish (the disk, not a person, is what it waits for then).
    func expire(client: ClientID, id: DialogID) {
        changing(client) {
            guard let record = state.dialogs[id], record.client == client else { return }
            switch record.phase {
            case .choosing, .awaitingSnapshots: end(record, .cancelled(.timeout))
            case .writing: break
            }
        }
    }

    /// Lock held. An app-side ending: immediate, unless files are being written, in which case
    /// the writer is told to stop and the ending waits for its rollback.
    func cancelLocked(_ record: DialogRecord, reason: CancellationReason) {
        switch record.phase {
        case .choosing, .awaitingSnapshots:
            end(record, .cancelled(reason))
        case .writing(let job, let cancellation, let stop):
            if stop == nil {
                record.phase = .writing(job, cancellation, stop: reason)
                cancellation.cancel()
            }
        }
    }

    /// Lock held. Finds a live dialog of this client, or says why there is none.
    func lookup(client: ClientID, id: DialogID) throws(DialogError) -> DialogRecord {
        if let record = state.dialogs[id], record.client == client { return record }
        if state.clients[client]?.hasEnded(id) == true { throw .alreadyEnded(id) }
        throw .unknownDialog(id)
    }

    /// Lock held. Like ``lookup(client:id:)``, and checks the kind.
    func lookup(client: ClientID, id: DialogID, kind: DialogKind) throws(DialogError) -> DialogRecord {
        let record = try lookup(client: client, id: id)
        guard record.kind == kind else { throw .wrongKind(id, expected: kind, actual: record.kind) }
        return record
    }

    /// Lock held. **The** ending: removes the dialog, then posts, in this order: the
    /// presenter's `hide` if it still shows the dialog, the folder to remember for a completed
    /// dialog, `presentationChanged(false)` and the ending. Nothing is ever posted for the
    /// dialog afterwards, because nothing can find it any more.
    func end(_ record: DialogRecord, _ ending: Ending) {
        state.dialogs[record.id] = nil
        record.stopTimeout()
        dropListings(of: record)
        if let clientRecord = state.clients[record.client] {
            clientRecord.close(record.id, presentationId: record.presentationId)
            if clientRecord.isDisconnected && clientRecord.open.isEmpty { state.clients[record.client] = nil }
        }
        let client = record.client
        // Posted after the delivery that announces the dialog, so decided by it: a dialog that
        // ended before its client could be told of it, and then could not be (its request was
        // cancelled), was never shown, and no event may name it.
        let withdrawn = record.withdrawn
        if record.isShowing {
            record.isShowing = false
            let (presenter, id) = (record.presenter, record.id)
            post(client) {
                if !withdrawn.withValue({ $0 }) { presenter.hide(id) }
            }
        }
        // Remembered before the client hears of the completion, so a dialog it presents in
        // response already opens there.
        if case .completed(_, _, let directory?) = ending, let customizationId = record.customizationId, let memory {
            let app = record.app
            post(client) { memory.remember(app: app, customizationId: customizationId, directory: directory) }
        }
        emit(client, .presentationChanged(record.id, isPresented: false), unlessWithdrawn: withdrawn)
        switch ending {
        case .completed(let files, let contentTypes, _):
            emit(client, .completed(record.id, record.kind, files: files, contentTypes: contentTypes, selections: record.selections),
                 unlessWithdrawn: withdrawn)
        case .failed(let failure):
            emit(client, .failed(record.id, record.kind, failure), unlessWithdrawn: withdrawn)
        case .cancelled(let reason):
            emit(client, .cancelled(record.id, record.kind, reason: reason), unlessWithdrawn: withdrawn)
        }
        lock.broadcast()
    }

    /// Where a new dialog opens: the directory remembered for its customization id (if it is
    /// still a directory), else its default directory (likewise), else home. A default
    /// directory that is not there is no error — a dialog should open somewhere, as SwiftUI's
    /// does — but it is told to ``notice`` with the folder used instead. Touches the disk and
    /// the memory: call it without the lock.
    func initialDirectory(app: String, options: DialogOptions) -> FilePath {
        if let customizationId = options.customizationId, let memory,
           let remembered = memory.rememberedDirectory(app: app, customizationId: customizationId),
           Self.isDirectory(remembered) {
            return remembered
        }
        if let given = options.defaultDirectory {
            let normalized = given.normalized
            if Self.isDirectory(normalized) { return normalized }
            notice("options.defaultDirectory \(Self.forTheLog(given)) is not an existing folder; the dialog opens in "
                + "the home folder, \(homeDirectory), instead")
        }
        return homeDirectory
    }

    /// A path a client sent, for a log line: at most 256 bytes of it (a client may send 128 KiB,
    /// and a log that fills up blocks whoever writes to it).
    static func forTheLog(_ path: FilePath) -> String {
        let limit = 256
        guard path.bytes.count > limit else { return path.description }
        return String(decoding: path.bytes.prefix(limit), as: UTF8.self) + "… (\(path.bytes.count) bytes)"
    }

    static func isDirectory(_ path: FilePath) -> Bool {
        (try? FileStatus.of(path))?.kind == .directory
    }
}

/// How a dialog ends (the payload of its final event).
enum Ending {
    /// `directory` is where the user ended up, remembered under the customization id.
    case completed([ChosenFile], contentTypes: [String]?, directory: FilePath?)
    case failed(DialogFailure)
    case cancelled(CancellationReason)
}

/// Everything the engine holds; only touched with its lock held.
struct EngineState {
    var dialogs: [DialogID: DialogRecord] = [:]
    var clients: [ClientID: ClientRecord] = [:]
    /// Each client's deliveries; kept while the client may still be owed something.
    var outboxes: [ClientID: Outbox] = [:]
    var dialogCounter: UInt64 = 0
    var listingCounter: UInt64 = 0
    /// Listing entries cached for paging, per client and in all (see `ListingCacheLimits`).
    var cachedEntries: [ClientID: Int] = [:]
    var cachedEntriesInAll = 0

    mutating func outbox(for client: ClientID) -> Outbox {
        if let outbox = outboxes[client] { return outbox }
        let fresh = Outbox()
        outboxes[client] = fresh
        return fresh
    }
}

/// One client's bookkeeping. Only touched with the engine's lock held.
final class ClientRecord {
    /// Open dialogs, oldest first (the order `disconnect` ends them in).
    var open: [DialogID] = []
    /// `presentationId` → the open dialog presented with it.
    var presentations: [String: DialogID] = [:]
    /// Recently ended dialogs, so late input can be told "already ended" rather than "unknown".
    private var ended = RecentlyEnded()
    var isDisconnected = false
    /// Writes the client's exports one at a time, in the order they were chosen: a write may
    /// wait (a document read from a pipe its client never fills), and one thread per dialog
    /// being written let one app hold thousands; this way a client holds at most one.
    let exports = SerialQueue(pool: .blocking)

    func close(_ id: DialogID, presentationId: String?) {
        open.removeAll { $0 == id }
        if let presentationId, presentations[presentationId] == id { presentations[presentationId] = nil }
        ended.insert(id)
    }

    func hasEnded(_ id: DialogID) -> Bool { ended.contains(id) }
}

/// One open dialog. A class so the engine can update it in place; only touched with the
/// engine's lock held. Its configuration is the snapshot taken at `present` time.
final class DialogRecord {
    /// Cancels the `timeoutMs` timer, once the dialog has ended (or it would hold its work
    /// until due: up to a day).
    var cancelTimeout: (@Sendable () -> Void)?

    func stopTimeout() {
        cancelTimeout?()
        cancelTimeout = nil
    }

    enum Phase {
        /// Waiting for the human (importer: files; exporter: destination and type).
        case choosing
        /// Exporter: destination chosen, waiting for the client's snapshots of lazy documents.
        case awaitingSnapshots(ExportJob)
        /// Exporter: the writer is running; mover: the files are being moved. `stop` is set
        /// once the app asked it to stop.
        case writing(Work, ExportCancellation, stop: CancellationReason?)
    }

    /// What is being written: an exporter's documents, or a mover's files.
    enum Work {
        case export(ExportJob)
        case move(MoveJob)
    }

    let id: DialogID
    let client: ClientID
    let app: String
    let kind: DialogKind
    let presentationId: String?
    let customizationId: String?
    let presenter: any DialogPresenter
    let types: any ContentTypeOracle
    /// Its ``SelectionRules/filter`` follows the filter the person selects.
    var rules: SelectionRules
    let allowsMultipleSelection: Bool
    let importsUnresolvedAliases: Bool
    let exporter: ExporterPlan?
    /// A mover's files.
    var mover: MoverPlan?
    /// The named filters (``DialogOptions/filters``) and the one in force: nil while any of them
    /// is (``DialogEngine/selectFilter(client:id:index:)``), then the one a pick matched.
    var filters: [DialogFilter] = []
    var selectedFilter: Int?
    /// The choices and the person's value of each, in order.
    var choices: [DialogChoice] = []
    var choiceValues: [DialogSelections.Value] = []

    /// What the ending reports besides the files; nil for a dialog without filters or choices.
    var selections: DialogSelections? {
        filters.isEmpty && choices.isEmpty ? nil : DialogSelections(filter: selectedFilter, choices: choiceValues)
    }

    var phase: Phase = .choosing
    /// The presenter is still showing the dialog (no answer from the human yet), so an
    /// app-side ending must hide it.
    var isShowing = true
    /// Set when the client could not be told of the dialog (``DialogEngine/withdraw(client:id:)``),
    /// by the delivery that tried; read by the deliveries of an ending posted before it knew.
    let withdrawn = Locked(false)
    /// The directory the dialog shows: the initial one, then the last one listed.
    var directory: FilePath
    var lastListedDirectory: FilePath?
    /// Sorted listings kept for paging, most recent last.
    var listings: [ListingSnapshot] = []
    /// Listings dropped to keep the cache within its limits, by generation → what was read, so
    /// a cursor into one can still be served from a fresh read. Bounded.
    var evictedListings: [UInt64: ListingSource] = [:]
    /// When the last progress event went out (scheduler clock).
    var lastProgress: Double = -.infinity

    var isWriting: Bool {
        if case .writing = phase { return true }
        return false
    }

    init(
        id: DialogID, client: ClientID, app: String, kind: DialogKind, presentationId: String?,
        customizationId: String?, presenter: any DialogPresenter, types: any ContentTypeOracle,
        rules: SelectionRules, allowsMultipleSelection: Bool, importsUnresolvedAliases: Bool,
        exporter: ExporterPlan?, directory: FilePath
    ) {
        self.id = id
        self.client = client
        self.app = app
        self.kind = kind
        self.presentationId = presentationId
        self.customizationId = customizationId
        self.presenter = presenter
        self.types = types
        self.rules = rules
        self.allowsMultipleSelection = allowsMultipleSelection
        self.importsUnresolvedAliases = importsUnresolvedAliases
        self.exporter = exporter
        self.directory = directory
    }
}
