import WharfFileWriting
import WharfSystem

/// The dialog engine: every open dialog of every client, and the single place where each of
/// them ends.
///
/// One engine serves a whole server process; clients are told apart by ``ClientID`` and never
/// see each other's dialogs. It is thread-safe: the server calls it from its reader thread,
/// timers fire on the scheduler's threads, exports finish on background queues. One internal
/// lock serialises every state change, and a dialog ends through a single transition under
/// that lock, so when a `cancel`, a `choose`, a timeout and a finishing writer race, exactly
/// one of them wins and the others get a clear "already ended" answer.
///
/// **The sink contract.** Events go to the sink given at init, called synchronously **with the
/// engine's lock held**, which is what keeps each client's events in order. The sink must
/// therefore return promptly and must never call back into the engine (that would deadlock);
/// presenters' `show`/`hide` are called under the same rule.
public final class DialogEngine: @unchecked Sendable {
    /// Receives every event, in order per client.
    public typealias EventSink = @Sendable (ClientID, DialogEvent) -> Void

    /// The most dialogs one client may have open at once.
    public let maxDialogsPerClient: Int
    let memory: (any DirectoryMemory)?
    let writer: any ExportWriting
    let scheduler: any DialogScheduler
    let homeDirectory: FilePath
    let sink: EventSink

    /// Guards `state`; also the condition ``waitForWrites(client:)`` waits on.
    let lock = ConditionLock()
    /// Only touched with `lock` held.
    var state = EngineState()

    /// - Parameters:
    ///   - memory: where `customizationId` directories are remembered; nil remembers nothing.
    ///   - writer: writes exported files (``AtomicExportWriter`` unless a test injects one).
    ///   - scheduler: time for timeouts and the progress rate.
    ///   - homeDirectory: where dialogs open when nothing better is known.
    ///   - sink: see the type's documentation for the contract.
    public init(
        maxDialogsPerClient: Int = 64,
        memory: (any DirectoryMemory)? = nil,
        writer: any ExportWriting = AtomicExportWriter(),
        scheduler: any DialogScheduler = DispatchScheduler(),
        homeDirectory: FilePath = FilePath.home(),
        sink: @escaping EventSink
    ) {
        self.maxDialogsPerClient = maxDialogsPerClient
        self.memory = memory
        self.writer = writer
        self.scheduler = scheduler
        self.homeDirectory = homeDirectory
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
        lock.lock()
        defer { lock.unlock() }
        let record: DialogRecord
        do {
            record = try lookup(client: client, id: id)
        } catch {
            if case .alreadyEnded = error { return false }
            throw error
        }
        cancelLocked(record, reason: .client)
        return true
    }

    /// The client went away: every dialog it has open ends with reason `disconnected`
    /// (exports being written are stopped and rolled back first; see
    /// ``waitForWrites(client:)`` to wait for that before the process exits).
    public func disconnect(client: ClientID) {
        lock.lock()
        defer { lock.unlock() }
        guard let clientRecord = state.clients[client] else { return }
        clientRecord.isDisconnected = true
        for id in clientRecord.open {
            if let record = state.dialogs[id] { cancelLocked(record, reason: .disconnected) }
        }
        if clientRecord.open.isEmpty { state.clients[client] = nil }
    }

    /// Blocks until no export of `client` (of any client, when nil) is being written. For the
    /// server's shutdown path, after ``disconnect(client:)``, so rollbacks finish before exit.
    public func waitForWrites(client: ClientID? = nil) {
        lock.lock()
        defer { lock.unlock() }
        while state.dialogs.values.contains(where: { $0.isWriting && (client == nil || $0.client == client) }) {
            lock.wait()
        }
    }

    /// How many dialogs `client` has open.
    public func openDialogCount(client: ClientID) -> Int {
        lock.withLock { state.clients[client]?.open.count ?? 0 }
    }

    // MARK: Answers from the human (through the presenter or the frontend)

    /// The human dismissed the dialog: `cancelled(reason: .user)` (SwiftUI calls
    /// `onCancellation`, not `onCompletion`).
    public func dismiss(client: ClientID, id: DialogID) throws(DialogError) {
        lock.lock()
        defer { lock.unlock() }
        let record = try lookup(client: client, id: id)
        guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
        record.isShowing = false
        end(record, .cancelled(.user))
    }

    /// The presenter cannot serve the dialog (a script ran out of steps, an expectation failed,
    /// a scripted choice was rejected): it ends with a `presenterFailed` failure carrying `message`.
    ///
    /// - Returns: false if the dialog is unknown, already ended, or past the choosing stage.
    @discardableResult
    public func presenterFailed(client: ClientID, id: DialogID, message: String) -> Bool {
        (try? fail(client: client, id: id, message: message)) != nil
    }

    /// A frontend presenter gives up on the dialog (`dialog/fail`: its own code failed while
    /// drawing or answering it): the dialog ends with a `presenterFailed` failure carrying
    /// `message`, so the app is told instead of waiting forever.
    ///
    /// - Throws: as ``dismiss(client:id:)`` does.
    public func fail(client: ClientID, id: DialogID, message: String) throws(DialogError) {
        lock.lock()
        defer { lock.unlock() }
        let record = try lookup(client: client, id: id)
        guard case .choosing = record.phase else { throw .choiceAlreadyMade(id) }
        record.isShowing = false
        end(record, .failed(DialogFailure(code: .presenterFailed, message: message)))
    }

    // MARK: Internals shared by the importer, exporter and listing

    /// Registers a validated dialog, shows it and arms its timeout. Everything the outside
    /// world hears about it happens under the lock, after `announce`.
    func register(
        client: ClientID, app: String, kind: DialogKind, presentationId: String?, options: DialogOptions,
        directory: FilePath, presenter: any DialogPresenter, types: any ContentTypeOracle,
        rules: SelectionRules, exporter: ExporterPlan?, allowsMultipleSelection: Bool,
        announce: (DialogID) -> Void,
        presented: (DialogID, DialogResponder) -> PresentedDialog
    ) throws(DialogError) -> DialogID {
        lock.lock()
        defer { lock.unlock() }
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
        state.dialogs[id] = record
        clientRecord.open.append(id)
        if let presentationId { clientRecord.presentations[presentationId] = id }
        clientRecord.isDisconnected = false

        announce(id)
        presenter.show(presented(id, DialogResponder(engine: self, client: client, id: id)))
        if let timeout = options.timeoutMs {
            scheduler.after(milliseconds: timeout) { [weak self] in self?.expire(client: client, id: id) }
        }
        return id
    }

    /// The dialog's `timeoutMs` ran out. It ends if it is still waiting for the human or for the
    /// client's snapshots; an export already being written is left to finish (the disk, not a
    /// person, is what it waits for then).
    func expire(client: ClientID, id: DialogID) {
        lock.lock()
        defer { lock.unlock() }
        guard let record = state.dialogs[id], record.client == client else { return }
        switch record.phase {
        case .choosing, .awaitingSnapshots: end(record, .cancelled(.timeout))
        case .writing: break
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

    /// Lock held. **The** ending: removes the dialog, hides it if the presenter still shows it,
    /// remembers where a completed dialog ended up, then emits `presentationChanged(false)` and
    /// the ending, in that order. Nothing is ever emitted for the dialog afterwards, because
    /// nothing can find it any more.
    func end(_ record: DialogRecord, _ ending: Ending) {
        state.dialogs[record.id] = nil
        if let clientRecord = state.clients[record.client] {
            clientRecord.close(record.id, presentationId: record.presentationId)
            if clientRecord.isDisconnected && clientRecord.open.isEmpty { state.clients[record.client] = nil }
        }
        if record.isShowing {
            record.isShowing = false
            record.presenter.hide(record.id)
        }
        // Remembered before the client hears of the completion, so a dialog it presents in
        // response already opens there.
        if case .completed(_, _, let directory?) = ending, let customizationId = record.customizationId, let memory {
            memory.remember(app: record.app, customizationId: customizationId, directory: directory)
        }
        sink(record.client, .presentationChanged(record.id, isPresented: false))
        switch ending {
        case .completed(let files, let contentTypes, _):
            sink(record.client, .completed(record.id, record.kind, files: files, contentTypes: contentTypes))
        case .failed(let failure):
            sink(record.client, .failed(record.id, record.kind, failure))
        case .cancelled(let reason):
            sink(record.client, .cancelled(record.id, record.kind, reason: reason))
        }
        lock.broadcast()
    }

    /// Where a new dialog opens: the directory remembered for its customization id (if it is
    /// still a directory), else its default directory (likewise), else home.
    func initialDirectory(app: String, options: DialogOptions) -> FilePath {
        if let customizationId = options.customizationId, let memory,
           let remembered = memory.rememberedDirectory(app: app, customizationId: customizationId),
           Self.isDirectory(remembered) {
            return remembered
        }
        if let given = options.defaultDirectory {
            let normalized = given.normalized
            if Self.isDirectory(normalized) { return normalized }
        }
        return homeDirectory
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
    var dialogCounter: UInt64 = 0
    var listingCounter: UInt64 = 0
}

/// One client's bookkeeping. Only touched with the engine's lock held.
final class ClientRecord {
    /// Open dialogs, oldest first (the order `disconnect` ends them in).
    var open: [DialogID] = []
    /// `presentationId` → the open dialog presented with it.
    var presentations: [String: DialogID] = [:]
    /// Recently ended dialogs, so late input can be told "already ended" rather than "unknown".
    private var ended: Set<DialogID> = []
    private var endedOrder: [DialogID] = []
    var isDisconnected = false

    /// How many ended ids are remembered per client; older ones count as unknown.
    static let endedMemory = 4096

    func close(_ id: DialogID, presentationId: String?) {
        open.removeAll { $0 == id }
        if let presentationId, presentations[presentationId] == id { presentations[presentationId] = nil }
        ended.insert(id)
        endedOrder.append(id)
        if endedOrder.count > Self.endedMemory { ended.remove(endedOrder.removeFirst()) }
    }

    func hasEnded(_ id: DialogID) -> Bool { ended.contains(id) }
}

/// One open dialog. A class so the engine can update it in place; only touched with the
/// engine's lock held. Its configuration is the snapshot taken at `present` time.
final class DialogRecord {
    enum Phase {
        /// Waiting for the human (importer: files; exporter: destination and type).
        case choosing
        /// Exporter: destination chosen, waiting for the client's snapshots of lazy documents.
        case awaitingSnapshots(ExportJob)
        /// Exporter: the writer is running; `stop` is set once the app asked it to stop.
        case writing(ExportJob, ExportCancellation, stop: CancellationReason?)
    }

    let id: DialogID
    let client: ClientID
    let app: String
    let kind: DialogKind
    let presentationId: String?
    let customizationId: String?
    let presenter: any DialogPresenter
    let types: any ContentTypeOracle
    let rules: SelectionRules
    let allowsMultipleSelection: Bool
    let importsUnresolvedAliases: Bool
    let exporter: ExporterPlan?

    var phase: Phase = .choosing
    /// The presenter is still showing the dialog (no answer from the human yet), so an
    /// app-side ending must hide it.
    var isShowing = true
    /// The directory the dialog shows: the initial one, then the last one listed.
    var directory: FilePath
    var lastListedDirectory: FilePath?
    /// Sorted listings kept for paging, most recent last.
    var listings: [ListingSnapshot] = []
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
