import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// One connected client: its lifecycle, its identity, its presenter, and everything it owns.
///
/// The lifecycle follows the LSP: requests before `initialize` get -32002 and notifications
/// before it are dropped (`exit` excepted); `initialize` comes once; after `shutdown` requests get
/// -32600; `exit` ends the session with 0 after `shutdown` and 1 without. End of input ends it the
/// same way, and so does the host (a signal, the editor's process gone). Once ended, a session
/// reads nothing more and answers nothing more.
public final class ClientSession: Sendable {
    enum Lifecycle: Sendable {
        case uninitialized, initialized, shuttingDown, ended
    }

    struct State: Sendable {
        var lifecycle = Lifecycle.uninitialized
        /// `clientInfo.name`: the app identity over standard I/O, a name within the verified
        /// app over the daemon (``ClientOrigin/ownerKey(name:)``).
        var name = "unnamed-client"
        /// A client, or the daemon's presenter connection.
        var role = ClientRole.client
        /// Who shows this client's dialogs, chosen at `initialize`.
        var presenter = PresenterChoice.none
    }

    public let id: UInt64
    let server: Server
    public let connection: Connection
    /// Where the client comes from, and the app it was verified to be.
    public let origin: ClientOrigin
    let state = Locked(State())
    /// Set as the session starts to end, before its dialogs are ended; asked by the engine,
    /// under its lock, before it registers a dialog (``isRunning``). A lock of its own, taken
    /// inside the engine's and never around another, so the two cannot wait on each other.
    private let ending = Locked(false)
    /// The exit status, once the session has ended: its host waits for it.
    private let exitCode = WaitableValue<Int32?>(nil)
    /// The client's content types: the system registry plus what it declared.
    let types: Locked<ContentTypeScope>
    /// The client's own UI as presenter, used when it says `presentsDialogs`.
    let frontend: FrontendPresenter
    let events: SessionEvents
    /// Run the client's requests that wait on the disk or the database, each queue one request
    /// at a time in the order they came: the dialogs' (presenting, listing, choosing) apart from
    /// the files' (access, bookmarks, reads and writes, identification), so that a dialog opens
    /// while a bookmark waits for the database. Both on the pool for work that may block, so that no
    /// client's waiting holds up another's (``WorkerPool/blocking``).
    let dialogWork = SerialQueue(pool: .blocking)
    let fileWork = SerialQueue(pool: .blocking)
    /// What lives as long as one of the client's dialogs (the charge for an exporter's
    /// documents' bytes, ``chargeDocumentBytes(_:)``): let go as the dialog's ending is
    /// delivered, or with the session.
    private let heldByDialogs = Locked<[DialogID: any Sendable]>([:])

    init(server: Server, connection: Connection, origin: ClientOrigin, events: SessionEvents) {
        self.server = server
        self.id = server.makeClientID()
        self.connection = connection
        self.origin = origin
        self.events = events
        self.types = Locked(ContentTypeScope(registry: server.registry))
        self.frontend = FrontendPresenter(connection: connection)
    }

    var logger: Logger { server.logger }
    /// Who grants, bookmarks and remembered folders belong to: the verified app and the
    /// client's name over the daemon, the declared name over standard I/O.
    public var appIdentity: String { origin.ownerKey(name: state.withValue { $0.name }) }
    /// True for the daemon's presenter connection.
    public var isPresenterConnection: Bool { state.withValue { $0.role == .presenter } }
    /// Who the client is, as the protocol says it.
    var identityInfo: ClientIdentityInfo { origin.info(name: state.withValue { $0.name }) }
    /// For logs and messages: `exe:/usr/bin/nvim#nvim, pid 4242`.
    var identityDescription: String {
        var text = appIdentity
        if let pid = origin.pid { text += ", pid \(pid)" }
        return text
    }
    /// This session as the dialog engine knows it.
    var dialogClient: WharfDialogs.ClientID { WharfDialogs.ClientID(id) }
    /// This session as the access store knows it.
    var accessClient: WharfAccess.ClientID { WharfAccess.ClientID(String(id)) }
    /// The calling client's content types: the system's plus its own declarations.
    var contentTypes: ContentTypeScope { types.withValue { $0 } }

    /// The connection handler that feeds this session.
    var handler: Connection.Handler {
        Connection.Handler(
            request: { [self] request, reply in handle(request, reply) },
            notification: { [self] notification in handle(notification) }
        )
    }

    // MARK: Dispatch

    private func handle(_ request: Request, _ reply: Reply) {
        let lifecycle = state.withValue { $0.lifecycle }
        if request.method == InitializeRequest.method {
            guard lifecycle == .uninitialized else {
                reply.fail(.invalidRequest("initialize may be sent only once"))
                return
            }
            initialize(request, reply)
            return
        }
        switch lifecycle {
        case .uninitialized:
            reply.fail(ResponseError(WharfErrorCode.serverNotInitialized, "the server is not initialized: send initialize first"))
        case .shuttingDown:
            reply.fail(.invalidRequest("the server is shutting down: only exit is accepted after shutdown"))
        case .ended:
            // Read while the session was ending on another thread (a signal, the parent gone):
            // answered at once rather than left to the end's wait for what is in flight.
            reply.fail(ResponseError(WharfErrorCode.requestCancelled, "the session has ended"))
        case .initialized:
            server.methods.dispatch(request, reply, session: self)
        }
    }

    private func handle(_ notification: Notification) {
        let lifecycle = state.withValue { $0.lifecycle }
        if notification.method == ExitNotification.method {
            end(exitCode: lifecycle == .shuttingDown ? 0 : 1, reason: "exit")
            return
        }
        switch lifecycle {
        case .uninitialized:
            logger.info("dropped \(notification.method): not initialized yet")
        case .ended:
            return
        case .initialized, .shuttingDown:
            switch notification.method {
            case InitializedNotification.method:
                break
            case SetTraceNotification.method:
                do throws(ProtocolError) {
                    let (message, unknown) = try SetTraceNotification.parse(notification.params)
                    warnAbout(unknown, in: SetTraceNotification.method)
                    setTrace(message.value)
                } catch {
                    logger.warning("\(SetTraceNotification.method): \(error.message)")
                }
            default:
                // Unknown notifications, `$/` ones included, are ignored, as JSON-RPC and the LSP say.
                logger.info("ignored notification \(notification.method)")
            }
        }
    }

    /// Logs the fields a message carried that the protocol does not have, each with the field
    /// it most likely meant: they are ignored, and a misspelt option otherwise does nothing
    /// without a word.
    func warnAbout(_ unknown: [UnknownField], in method: String) {
        for field in unknown { logger.warning("\(method): \(field)") }
    }

    // MARK: Ending

    func beginShutdown() {
        state.withValue { $0.lifecycle = .shuttingDown }
    }

    /// The exit status for an ending nobody asked for (end of input, a signal): 0 after
    /// `shutdown`, 1 before it.
    public var exitCodeForEndOfInput: Int32 {
        state.withValue { $0.lifecycle == .shuttingDown ? 0 : 1 }
    }

    /// The read loop has stopped: the session ends, if it has not already.
    func readingStopped(_ reason: Connection.EndReason) {
        switch reason {
        case .endOfInput:
            end(exitCode: exitCodeForEndOfInput, reason: "end of input")
        case .truncated:
            logger.error("input ended in the middle of a message")
            end(exitCode: 1, reason: "truncated input")
        case .readFailed(let error):
            logger.error("reading the input failed: \(error)")
            end(exitCode: 1, reason: "read error")
        case .writeFailed:
            end(exitCode: exitCodeForEndOfInput, reason: "output closed")
        case .stopped:
            break
        }
    }

    /// Ends the session: stops reading, ends the client's dialogs (`dialog/cancelled` with
    /// reason `disconnected`, still written if the client is reading), releases its leases and
    /// grants (bookmarks, which belong to the app, stay), writes everything owed, and closes the
    /// output. Safe from any thread, any number of times: the first call decides the exit
    /// status, and every call returns once the session has ended.
    public func end(exitCode: Int32, reason: String) {
        let first = state.withValue { state -> Bool in
            guard state.lifecycle != .ended else { return false }
            state.lifecycle = .ended
            return true
        }
        guard first else {
            _ = waitUntilEnded()
            return
        }
        // Before the dialogs are ended: a `present…` still on its way is refused from now on.
        ending.withValue { $0 = true }
        logger.info("session \(id) ends (\(reason)), exit code \(exitCode)")
        connection.stopReading()
        // What is in flight finishes before the client's grants and dialogs go: a bookmark or
        // a read already under way would otherwise find its grant gone and be refused.
        connection.waitForPendingReplies(seconds: 2)
        releaseEverything()
        connection.flush(seconds: 2)
        connection.closeOutput()
        self.exitCode.change { $0 = exitCode }
    }

    /// False once the session has started to end: no dialog may be registered for it then, since
    /// its dialogs have been (or are being) ended and none registered later would ever end.
    var isRunning: Bool { !ending.withValue { $0 } }

    /// Blocks until the session has ended; its exit status.
    func waitUntilEnded() -> Int32 {
        exitCode.wait { $0 }
    }

    /// Keeps `value` until dialog `id`'s ending is delivered (``deliver(_:)``).
    func keep(_ value: any Sendable, until id: DialogID) {
        heldByDialogs.withValue { $0[id] = value }
    }

    /// Lets go of what was kept for dialog `id`, outside the lock (it may take locks of its own).
    func letGo(of id: DialogID) {
        let value = heldByDialogs.withValue { $0.removeValue(forKey: id) }
        _ = value
    }

    private func letGoOfEverythingHeld() {
        let values = heldByDialogs.withValue { held in
            defer { held = [:] }
            return held
        }
        _ = values
    }

    private func releaseEverything() {
        if isPresenterConnection { server.hub.unregister(self) }
        server.engine.disconnect(client: dialogClient)
        // An export being written is rolled back, and the last events delivered, before the
        // session's output closes.
        server.engine.waitForWrites(client: dialogClient)
        server.engine.forget(client: dialogClient)
        letGoOfEverythingHeld()
        let released = server.access.endSession(client: accessClient)
        if released > 0 { logger.info("released \(released) lease(s) left open") }
    }
}

// MARK: Work queues

extension ClientSession {
    func queue(_ queue: WorkQueue) -> SerialQueue {
        switch queue {
        case .dialogs: dialogWork
        case .files: fileWork
        }
    }

    /// Runs `work` on one of the session's queues; what it sends to the client leaves from
    /// that thread when it is done (``Connection/batchingWrites(_:)``).
    func run(on queue: WorkQueue, _ work: @escaping @Sendable () -> Void) {
        run(on: self.queue(queue), work)
    }

    /// Runs `work` on `queue` (another session's, for a presenter connection answering its
    /// dialogs); what it sends to this client leaves from that thread when it is done.
    func run(on queue: SerialQueue, _ work: @escaping @Sendable () -> Void) {
        let connection = self.connection
        queue.run { connection.batchingWrites(work) }
    }
}

// MARK: Initialize

extension ClientSession {
    /// `initialize`: records who the client is, what it can do and who will show its dialogs,
    /// and says what we can do.
    func initialize(_ request: Request, _ reply: Reply) {
        let message: InitializeRequest
        do throws(ProtocolError) {
            let (parsed, unknown) = try InitializeRequest.parse(request.params)
            warnAbout(unknown, in: InitializeRequest.method)
            message = parsed
        } catch {
            reply.fail(.invalidParams(error.message))
            return
        }
        // Named before the role is taken, so the presenter hub's log names the client; a
        // refused `initialize` leaves the session uninitialized, its name included (the name
        // chooses whose grants and bookmarks these are).
        let nameBefore = state.withValue { state in
            let before = state.name
            if let name = message.clientInfo?.name { state.name = name }
            return before
        }
        if message.role == .presenter {
            do throws(ResponseError) {
                try becomePresenterConnection()
            } catch {
                state.withValue { $0.name = nameBefore }
                reply.fail(error)
                return
            }
        }
        let presenter = server.presenters.choose(for: message.capabilities, session: self)
        state.withValue { state in
            state.lifecycle = .initialized
            state.presenter = presenter
        }
        if let trace = message.trace { setTrace(trace) }
        if let pid = message.processId { events.clientProcess(self, Int32(pid)) }
        let capabilities = ServerCapabilities(
            framings: Framing.allCases.map(\.rawValue),
            maxTransferBytes: Int64(AccessStore.maximumTransferLength),
            presenters: presenter.usable,
            presenter: presenter.name,
            unavailablePresenters: presenter.unavailable,
            maxDialogsPerClient: Int64(server.options.maxDialogsPerClient)
        )
        reply.succeed(InitializeResult(serverName: ServerInfo.name, serverVersion: ServerInfo.version,
                                       protocolVersion: ServerInfo.protocolVersion, capabilities: capabilities,
                                       client: identityInfo).json)
    }

    /// `"role": "presenter"`: this connection shows the dialogs of every client of the daemon
    /// that does not show its own, if it may (see ``PresenterHub``).
    private func becomePresenterConnection() throws(ResponseError) {
        guard server.options.acceptsPresenterConnections else {
            throw ResponseError(WharfErrorCode.presenterRefused,
                                "role presenter: this wharf serves one client over standard I/O, so there are no other clients to "
                                + "present dialogs for; connect to the daemon (wharf --listen) instead")
        }
        if let sandbox = origin.sandbox {
            throw ResponseError(WharfErrorCode.presenterRefused,
                                "role presenter: \(sandbox), and the presenter chooses files for every app; only a "
                                + "process that is not sandboxed may present the daemon's dialogs")
        }
        // The role first: a session that ends meanwhile unregisters what it may have registered.
        state.withValue { $0.role = .presenter }
        do throws(ResponseError) {
            try server.hub.register(self)
        } catch {
            state.withValue { $0.role = .client }
            throw error
        }
    }
}
