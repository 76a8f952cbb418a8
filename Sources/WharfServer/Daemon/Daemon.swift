import Glibc
import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// The running daemon: its accept loop, its connections, its ending.
///
/// `@unchecked Sendable`: every `var` is read and written with `lock` held.
final class Daemon: @unchecked Sendable {
    let server: Server
    let listener: FileDescriptor
    let bound: DaemonSocket?
    let logger: Logger
    var options: ServerOptions { server.options }
    /// Wakes the accept loop when the daemon stops.
    private let stopping: Interrupter

    private let lock = ConditionLock()
    // Guarded by `lock`.
    /// Connection threads still running.
    private var connections = 0
    /// The accept loop is between `poll` and counting what it accepted.
    private var accepting = false
    private var stopped = false
    /// Changes whenever a connection arrives: an idle timer armed before it is void.
    private var idleGeneration = 0
    /// Sessions being served, by id.
    private var sessions: [UInt64: ClientSession] = [:]
    /// Connections that have no session yet (waiting for their first byte), to wake at stop.
    private var waiting: [ObjectIdentifier: Interrupter] = [:]
    /// Connections per peer identity (`--max-clients-per-app`).
    private var connectionsPerApp: [String: Int] = [:]
    /// What each app's sessions share (``AppBudgets``).
    private var appBudgets: [VerifiedApp: AppBudgets] = [:]
    /// Apps with no session left whose dialogs still wait for the presenter connection: their
    /// budgets stay until those bytes are written.
    private var lingeringBudgets: Set<VerifiedApp> = []
    /// The documents every app's exporters hold open together, and their bytes
    /// (``ClientOrigin/documentBudgets``).
    private let openDocuments: ByteBudget
    private let documentBytes: ByteBudget

    init(server: Server, listener: FileDescriptor, bound: DaemonSocket?, openDocuments: ByteBudget, documentBytes: ByteBudget,
         logger: Logger) {
        self.server = server
        self.listener = listener
        self.bound = bound
        self.openDocuments = openDocuments
        self.documentBytes = documentBytes
        self.logger = logger
        self.stopping = try! Interrupter()
    }

    func run() -> Never {
        startThread { [self] in
            let number = ProcessControl.waitForEndSignal()
            stop(reason: "signal \(number)")
        }
        lock.withLock { armIdleTimer() }
        acceptLoop()
        // Stopping: the thread that stopped us exits the process.
        while true { ProcessControl.sleep(milliseconds: 1000) }
    }

    // MARK: Accepting

    private func acceptLoop() {
        while Readiness.waitReadable(listener, or: stopping) {
            let proceed = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                accepting = true
                return true
            }
            guard proceed else { return }
            let socket: FileDescriptor?
            do {
                socket = try UnixSocket.accept(listener)
            } catch {
                logger.error("accepting a connection failed: \(error)")
                socket = nil
                ProcessControl.sleep(milliseconds: 50)
            }
            let admitted = lock.withLock { () -> Bool in
                accepting = false
                guard socket != nil else { return false }
                idleGeneration += 1
                guard connections < options.maxClients else { return false }
                connections += 1
                return true
            }
            guard let socket else { continue }
            guard admitted else {
                logger.warning("refused a connection: \(options.maxClients) clients are connected (--max-clients)")
                Self.refuse(socket, TooManyClients(
                    limit: options.maxClients, option: "--max-clients",
                    message: "the daemon already serves \(options.maxClients) connections, the most --max-clients allows; "
                        + "try again once one has ended"))
                continue
            }
            // A connection the system will not give a thread is refused, as one past
            // --max-clients is: the daemon goes on serving the others instead of stopping.
            do throws(SystemError) {
                try tryStartThread { [self] in
                    serve(socket)
                    connectionEnded()
                }
            } catch {
                logger.error("refused a connection: no thread could be started for it (\(error))")
                socket.close()
                connectionEnded()
            }
        }
    }

    private func connectionEnded() {
        lock.withLock {
            connections -= 1
            if connections == 0 { armIdleTimer() }
            lock.broadcast()
        }
    }

    // MARK: One connection

    /// Serves one accepted connection on its own thread, until its session ends.
    private func serve(_ socket: FileDescriptor) {
        let credentials: PeerCredentials
        do {
            credentials = try PeerCredentials.of(socket)
        } catch {
            logger.warning("refused a connection whose peer cannot be known: \(error)")
            return
        }
        guard credentials.uid == ProcessControl.userID else {
            logger.warning("refused a connection from another user (\(credentials)): only uid \(ProcessControl.userID) may connect")
            return
        }
        let peer: Peer
        switch Peer.accepted(socket, credentials) {
        case .success(let accepted): peer = accepted
        case .failure(let refusal):
            logger.warning("refused a connection: \(refusal.reason)")
            return
        }
        // A peer that will be refused whatever it says is refused now, holding no place.
        let own: VerifiedApp
        switch peer.own {
        case .app(let app): own = app
        case .refused(let reason):
            logger.warning("refused a connection: \(reason)")
            return
        }
        // Counted from the start, silent connections too: an app opening connection after
        // connection and saying nothing must not take every place. (A bridge counts as its
        // own process's app: wharf's, or its sandbox's.)
        let holder = own.identity
        guard admit(holder) else {
            Self.refuse(socket, TooManyClients(
                limit: options.maxClientsPerApp, option: "--max-clients-per-app",
                message: "\(holder) already has \(options.maxClientsPerApp) connections to the daemon, the most "
                    + "--max-clients-per-app allows; try again once one of them has ended"))
            return
        }
        defer { release(holder) }
        let deadline = InitializeDeadline(seconds: options.initializeTimeoutSeconds, logger: logger, app: holder)
        defer { deadline.cancel() }
        guard let firstByte = waitForFirstByte(socket, deadline: deadline) else { return }
        if firstByte == 0 {
            serveBridge(socket, peer, deadline: deadline)
        } else {
            serveSocketClient(socket, peer, app: own, deadline: deadline)
        }
    }

    /// Waits for the client to send something (nil if it goes away, or the daemon stops first):
    /// a bridge's greeting starts with a NUL byte, which no JSON-RPC client sends first.
    private func waitForFirstByte(_ socket: FileDescriptor, deadline: InitializeDeadline) -> UInt8? {
        let interrupter: Interrupter
        do {
            try socket.setNonBlocking()
            interrupter = try Interrupter()
        } catch {
            logger.error("cannot serve a connection: \(error)")
            return nil
        }
        let key = ObjectIdentifier(interrupter)
        guard lock.withLock({ () -> Bool in
            guard !stopped else { return false }
            waiting[key] = interrupter
            return true
        }) else { return nil }
        defer { lock.withLock { _ = waiting.removeValue(forKey: key) } }
        deadline.watch(interrupter)
        while Readiness.waitReadable(socket, or: interrupter) {
            do {
                return try socket.peekByte()
            } catch where error.code == EAGAIN || error.code == EWOULDBLOCK {
                continue
            } catch {
                return nil
            }
        }
        return nil
    }

    /// A client speaking the protocol on the socket itself: its app is the peer's, `app`.
    private func serveSocketClient(_ socket: FileDescriptor, _ peer: Peer, app: VerifiedApp, deadline: InitializeDeadline) {
        let credentials = peer.credentials
        let output: FileDescriptor
        do {
            output = try socket.duplicate()
        } catch {
            logger.error("cannot serve a connection: \(error)")
            return
        }
        var connectionOptions = options.connectionOptions
        connectionOptions.nonBlocking = true
        connectionOptions.passesDescriptors = true
        let budgets = takeBudgets(of: app)
        defer { giveBackBudgets(of: app) }
        connectionOptions.inputBudget = budgets.input
        let connection = Connection(input: socket, output: output, options: connectionOptions, logger: logger)
        var origin = ClientOrigin(transport: .socket, app: app, pid: credentials.pid, confined: peer.confined)
        origin.presenterBudget = budgets.presenter
        origin.documentBudgets = DocumentBudgets(appFiles: budgets.documents, allFiles: openDocuments,
                                                 appBytes: budgets.documentBytes, allBytes: documentBytes)
        let code = server.serve(connection, origin: origin, events: sessionEvents(onStart: { session in deadline.watch(session) }))
        logger.info("the connection of \(app) (pid \(credentials.pid)) ended with \(code)")
    }

    // MARK: Bridges

    /// `wharf --connect`: a bridge started by a program that can only spawn a process hands
    /// over its standard input and output; the daemon serves the session on them directly and,
    /// when it ends, sends the bridge the session's exit status to exit with. The client's app
    /// is the bridge's parent: the program that started it.
    private func serveBridge(_ socket: FileDescriptor, _ peer: Peer, deadline: InitializeDeadline) {
        let credentials = peer.credentials
        var buffer = [UInt8](repeating: 0, count: 256)
        var passed: [FileDescriptor] = []
        var lost = false
        let count = buffer.withUnsafeMutableBytes { raw in
            (try? socket.receive(into: raw, descriptors: &passed, lostDescriptors: &lost)) ?? nil
        }
        guard let count, let greeting = BridgeGreeting(bytes: Array(buffer[..<count])), passed.count == 2, !lost else {
            logger.warning("refused a bridge (pid \(credentials.pid)): its greeting was not understood")
            return
        }
        guard let (app, clientPID, confined) = bridgedApp(peer, greeting) else { return }
        let input = Self.ownDescription(passed[0], O_RDONLY)
        let output = Self.ownDescription(passed[1], O_WRONLY)
        guard let input, let output else {
            logger.warning("refused a bridge (pid \(credentials.pid)): its standard streams cannot be used")
            return
        }
        var connectionOptions = options.connectionOptions
        connectionOptions.nonBlocking = true
        let budgets = takeBudgets(of: app)
        defer { giveBackBudgets(of: app) }
        connectionOptions.inputBudget = budgets.input
        let connection = Connection(input: input, output: output, options: connectionOptions, logger: logger)
        let control = BridgeControl(socket: socket, logger: logger)
        var origin = ClientOrigin(transport: .bridge, app: app, pid: clientPID, confined: confined, opener: control)
        origin.presenterBudget = budgets.presenter
        origin.documentBudgets = DocumentBudgets(appFiles: budgets.documents, allFiles: openDocuments,
                                                 appBytes: budgets.documentBytes, allBytes: documentBytes)
        let code = server.serve(connection, origin: origin, events: sessionEvents(onStart: { session in
            // `T` from the bridge is a signal to it; its end of file is the bridge gone.
            control.start { reason in session.end(exitCode: session.exitCodeForEndOfInput, reason: reason) }
            deadline.watch(session)
        }))
        control.finish(status: code)
        logger.info("the bridged session of \(app) (pid \(clientPID)) ended with \(code)")
    }

    /// The app a bridge serves: a sandboxed bridge is its sandbox's app; otherwise the bridge
    /// must be this very program, and the app is its parent's (the pid the bridge was started
    /// by, which must still be its parent). Confined when either does not see the daemon's files.
    private func bridgedApp(_ peer: Peer, _ greeting: BridgeGreeting) -> (VerifiedApp, Int32, confined: Bool)? {
        let (bridge, bridgePID) = (peer.record, peer.credentials.pid)
        if case .app(let app) = peer.own, app.isSandboxed { return (app, bridgePID, peer.confined) }
        guard peer.runsThisProgram else {
            logger.warning("refused a bridge greeting from pid \(bridgePID), which does not run wharf")
            return nil
        }
        // Pid 1 adopts orphans: a bridge "started" by it was started by a process now gone.
        guard greeting.parentPID != 1, peer.parentPID == greeting.parentPID, bridge.parentPID() == greeting.parentPID,
              let parent = try? ProcessRecord(pid: greeting.parentPID) else {
            logger.warning("refused a bridge (pid \(bridgePID)): the process that started it (pid \(greeting.parentPID)) is gone")
            return nil
        }
        let outcome = PeerIdentification.identify(parent)
        // Still its parent: the record read above was of the process that started the bridge.
        guard bridge.parentPID() == greeting.parentPID else { return nil }
        switch outcome {
        case .app(let app): return (app, greeting.parentPID, peer.confined || !parent.sharesFileSystemView())
        case .refused(let reason):
            logger.warning("refused a bridge (pid \(bridgePID)): \(reason)")
            return nil
        }
    }

    /// A passed pipe or terminal opened again, so that `O_NONBLOCK` is set on a description
    /// of our own (the editor's other processes may share the one passed); a socket, which
    /// cannot be opened again, as it is. Nil unless the bridge's own was open for `mode`.
    private static func ownDescription(_ passed: FileDescriptor, _ mode: Int32) -> FileDescriptor? {
        guard mode == O_RDONLY ? passed.isOpenForReading : passed.isOpenForWriting else { return nil }
        if let own = try? passed.reopen(mode | O_NONBLOCK) { return own }
        guard (try? passed.setNonBlocking()) != nil else { return nil }
        return passed
    }

    /// The budgets `app`'s sessions share, however many connections the app opens.
    private func takeBudgets(of app: VerifiedApp) -> AppBudgets {
        lock.withLock {
            var entry = appBudgets[app] ?? AppBudgets(options)
            entry.sessions += 1
            appBudgets[app] = entry
            lingeringBudgets.remove(app)
            return entry
        }
    }

    /// One session of `app` has ended. Its budgets go with its last session, unless its dialogs
    /// still have bytes waiting for the presenter connection, or documents open: an app given a
    /// fresh budget each time it reconnected could queue or hold as much again each time. Those
    /// stay until the bytes are written (or thrown away with the presenter connection) and the
    /// documents closed, and go when an app next leaves.
    private func giveBackBudgets(of app: VerifiedApp) {
        lock.withLock {
            guard var entry = appBudgets[app] else { return }
            entry.sessions -= 1
            appBudgets[app] = entry
            if entry.sessions == 0 { lingeringBudgets.insert(app) }
            for idle in lingeringBudgets where appBudgets[idle]?.isUnused ?? true {
                appBudgets[idle] = nil
                lingeringBudgets.remove(idle)
            }
        }
    }

    /// Counts a connection of the peer identity `holder`, unless it has
    /// `--max-clients-per-app` already.
    private func admit(_ holder: String) -> Bool {
        let admitted = lock.withLock { () -> Bool in
            guard connectionsPerApp[holder, default: 0] < options.maxClientsPerApp else { return false }
            connectionsPerApp[holder, default: 0] += 1
            return true
        }
        if !admitted { logger.warning("refused a connection of \(holder): it has \(options.maxClientsPerApp) already (--max-clients-per-app)") }
        return admitted
    }

    /// Why a connection is refused as it arrives: a limit of connections, and the option that sets it.
    struct TooManyClients {
        var limit: Int
        var option: String
        var message: String
    }

    /// Tells a connection refused as it arrives why, then closes it: one JSON-RPC error with
    /// `"id": null` (`tooManyClients`, the limit and the option in `data`), so that the client
    /// sees more than an end of file. One NDJSON line: nothing has been read yet, so the
    /// client's framing is not known. Written without waiting (a new socket's buffer is empty,
    /// and the line is short): a peer that does not read costs the daemon nothing.
    static func refuse(_ socket: FileDescriptor, _ refusal: TooManyClients) {
        let error: JSON = [
            "code": .int(WharfErrorCode.tooManyClients.rawValue),
            "message": .string(refusal.message),
            "data": ["limit": .int(Int64(refusal.limit)), "option": .string(refusal.option)],
        ]
        let answer: JSON = ["jsonrpc": "2.0", "id": nil, "error": error]
        var line = answer.serialized()
        line.append(UInt8(ascii: "\n"))
        _ = line.withUnsafeBytes { bytes in try? socket.writeAvailable(gathering: [bytes], offset: 0, isSocket: true) }
        socket.close()
    }

    private func release(_ holder: String) {
        lock.withLock {
            connectionsPerApp[holder, default: 1] -= 1
            if connectionsPerApp[holder] == 0 { connectionsPerApp[holder] = nil }
        }
    }

    /// What one app's sessions share, and how many share it.
    private struct AppBudgets {
        /// Their unfinished messages: room for two of the largest (`--max-message-bytes`).
        let input: ByteBudget
        /// What their dialogs have waiting for the presenter connection
        /// (`--max-presenter-bytes-per-app`, ``ConnectionPresenter``).
        let presenter: ByteBudget
        /// The documents their exporters hold open (`--max-open-documents-per-app`), counted
        /// one a document, and the bytes of those held in memory (`--max-document-bytes-per-app`).
        let documents: ByteBudget
        let documentBytes: ByteBudget
        var sessions = 0

        init(_ options: ServerOptions) {
            input = ByteBudget(limit: 2 * options.connectionOptions.maxMessageBytes)
            presenter = ByteBudget(limit: options.maxPresenterBytesPerApp)
            documents = ByteBudget(limit: options.maxOpenDocumentsPerApp)
            documentBytes = ByteBudget(limit: options.maxDocumentBytesPerApp)
        }

        /// Nothing the app's ended sessions left is still counted.
        var isUnused: Bool { presenter.bytesHeld == 0 && documents.bytesHeld == 0 && documentBytes.bytesHeld == 0 }
    }

    // MARK: Sessions

    private func sessionEvents(onStart: @escaping @Sendable (ClientSession) -> Void) -> SessionEvents {
        SessionEvents(started: { [self] session in
            let registered = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                sessions[session.id] = session
                return true
            }
            onStart(session)
            if !registered {
                startThread { session.end(exitCode: session.exitCodeForEndOfInput, reason: "the daemon is stopping") }
            }
        }, ended: { [self] session in
            lock.withLock { _ = sessions.removeValue(forKey: session.id) }
        })
    }

    // MARK: Stopping

    /// `SIGTERM`: every client's session ends as it is owed (its dialogs cancelled with
    /// `disconnected`, its replies and events written, its leases released), then the
    /// presenter connection's, then the daemon exits 0.
    private func stop(reason: String) -> Never {
        let (clients, presenters) = lock.withLock { () -> ([ClientSession], [ClientSession]) in
            stopped = true
            for interrupter in waiting.values { interrupter.signal() }
            let all = Array(sessions.values)
            return (all.filter { !$0.isPresenterConnection }, all.filter { $0.isPresenterConnection })
        }
        stopping.signal()
        logger.info("\(reason): ending \(clients.count) session(s)")
        end(clients, reason: reason)
        end(presenters, reason: reason)
        lock.withLock {
            let deadline = Deadline(secondsFromNow: 10)
            while connections > 0 && !deadline.hasPassed { lock.wait(until: deadline) }
        }
        exit()
    }

    /// Ends `sessions` at once, each on a thread of its own, and waits for all of them.
    private func end(_ sessions: [ClientSession], reason: String) {
        let remaining = WaitableValue(sessions.count)
        for session in sessions {
            startThread {
                session.end(exitCode: session.exitCodeForEndOfInput, reason: "the daemon is stopping (\(reason))")
                remaining.change { $0 -= 1 }
            }
        }
        remaining.wait { $0 == 0 ? () : nil }
    }

    private func exit() -> Never {
        server.close()
        bound?.remove()
        ProcessControl.exit(0)
    }

    // MARK: Idle exit

    /// Lock held. With `--idle-timeout`, exits once no connection has come for that long.
    private func armIdleTimer() {
        let seconds = options.idleTimeoutSeconds
        guard seconds > 0, !stopped else { return }
        idleGeneration += 1
        let generation = idleGeneration
        TimerQueue.shared.after(milliseconds: seconds * 1000) { [self] in
            let idle = lock.withLock { () -> Bool in
                guard connections == 0, !accepting, !stopped, idleGeneration == generation else { return false }
                stopped = true
                return true
            }
            guard idle else { return }
            logger.info("no connection for \(seconds) s; exiting")
            exit()
        }
    }
}
