import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfFileWriting
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// What every client of one `wharf` process shares: configuration, the method table, the
/// content-type registry, the dialog engine, the access store and the presenters; and the one
/// place a connection becomes a client session (``serve(_:events:)``).
///
/// One process can serve many clients; nothing here belongs to a single one. Dialog events are
/// routed to the session that owns the dialog.
public final class Server: Sendable {
    public let options: ServerOptions
    public let logger: Logger
    let methods = MethodTable.standard
    let registry: ContentTypeRegistry
    let access: AccessStore
    let engine: DialogEngine
    let presenters: PresenterFactory
    /// The daemon's presenter connection, if one is registered.
    let hub: PresenterHub
    private let nextClientID = Locked<UInt64>(1)
    private let sessions = SessionDirectory()

    public init(options: ServerOptions, logger: Logger) throws(StartupError) {
        self.options = options
        self.logger = logger
        self.registry = .system
        do {
            // The database opens when a session first needs it, off the read loop.
            let (store, warnings) = try AccessStore.open(stateDirectory: options.stateDirectory, opening: .whenNeeded)
            for warning in warnings { logger.warning(warning) }
            // Writes nobody waits for (grants, leases, remembered folders written behind) fail
            // only here: in the log, saying what failed (a full disk, a read-only store, …).
            store.reportProblems { logger.error($0) }
            self.access = store
        } catch {
            let place = options.stateDirectory.map { "--state-dir \($0)" } ?? "the default state directory"
            throw StartupError(message: "cannot use \(place) for grants and bookmarks: \(error)", exitStatus: 1)
        }
        self.presenters = try PresenterFactory(setting: options.presenter, explainsToShellUser: options.explainsToShellUser, logger: logger)
        self.hub = PresenterHub(logger: logger)
        let sessions = self.sessions
        self.engine = DialogEngine(
            maxDialogsPerClient: options.maxDialogsPerClient,
            memory: StoreDirectoryMemory(store: access, logger: logger),
            writer: RecordingExportWriter(store: access, logger: logger),
            mover: RecordingFileMover(store: access, logger: logger),
            notice: { logger.warning($0) },
            sink: sessions
        )
        // Opens the database: off the start-up path, and only after a crash.
        if access.crashLeftovers {
            let (access, logger) = (self.access, logger)
            WorkerPool.blocking.run { Self.sweepCrashLeftovers(access, logger) }
        }
    }

    /// Serves one client on `connection` until its session ends, on the calling thread, and
    /// returns the exit status the session ended with (0 after `shutdown` then `exit` or end of
    /// input, 1 otherwise).
    ///
    /// This is the only way a session is hosted: the stdio host, the in-process test server
    /// and the fuzzer all come through here, so they agree on how a session ends and on what
    /// the client is owed at the end (its dialogs ended with `disconnected`, its leases
    /// released, every reply and event written). What concerns the whole process (its exit,
    /// signals, the parent process) stays with the host, which hears of the session through
    /// `events`.
    public func serve(_ connection: Connection, origin: ClientOrigin = .standardIO, events: SessionEvents = SessionEvents()) -> Int32 {
        let session = ClientSession(server: self, connection: connection, origin: origin, events: events)
        sessions[session.id] = session
        events.started(session)
        let reason = connection.run(session.handler)
        session.readingStopped(reason)
        let code = session.waitUntilEnded()
        sessions[session.id] = nil
        events.ended(session)
        return code
    }

    /// Every request method a client may send that the server answers.
    public static var answeredMethods: Set<String> { MethodTable.standard.methods.union([InitializeRequest.method]) }

    /// Writes what is still held in memory to the state store and closes it: the last thing a
    /// process does before it exits.
    public func close() {
        access.close()
    }

    /// A new id for each connection; unique within this process.
    func makeClientID() -> UInt64 {
        nextClientID.withValue { id in
            defer { id += 1 }
            return id
        }
    }

    /// What a process that crashed left: temporary files in the directories Wharf wrote into
    /// (a crash mid-write), and its rows in the store (swept by the first batch written).
    private static func sweepCrashLeftovers(_ access: AccessStore, _ logger: Logger) {
        guard let directories = try? access.writtenDirectories() else { return }
        for directory in directories {
            let removed = AtomicWriter.removeOrphans(in: directory)
            for path in removed { logger.info("removed orphaned temporary file \(path)") }
        }
        access.flush()
        access.forgetCrashLeftovers()
    }
}

/// What a host hears about the session it serves, so that process-level concerns stay with the
/// host: the stdio host ends the process on a signal (``ClientSession/end(exitCode:reason:)``)
/// and watches the editor that spawned it (`initialize.processId`).
public struct SessionEvents: Sendable {
    /// The session exists and is about to read its first message.
    public var started: @Sendable (ClientSession) -> Void
    /// `initialize` named the client's process.
    public var clientProcess: @Sendable (ClientSession, Int32) -> Void
    /// The session has ended and owes its client nothing more.
    public var ended: @Sendable (ClientSession) -> Void

    public init(started: @escaping @Sendable (ClientSession) -> Void = { _ in },
                clientProcess: @escaping @Sendable (ClientSession, Int32) -> Void = { _, _ in },
                ended: @escaping @Sendable (ClientSession) -> Void = { _ in }) {
        self.started = started
        self.clientProcess = clientProcess
        self.ended = ended
    }
}

/// The live sessions by id, so the dialog engine's events reach the session that owns the
/// dialog.
final class SessionDirectory: Sendable {
    private let sessions = Locked<[UInt64: ClientSession]>([:])

    subscript(id: UInt64) -> ClientSession? {
        get { sessions.withValue { $0[id] } }
        set { sessions.withValue { $0[id] = newValue } }
    }
}

/// The dialog engine's events go to the session that owns the dialog (none, once it has ended).
extension SessionDirectory: DialogEventSink {
    func deliver(_ event: DialogEvent, to client: WharfDialogs.ClientID) {
        self[client.rawValue]?.deliver(event)
    }
}

/// Why the server could not start (bad script file, unusable state directory).
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// What the process exits with: 2 for what the command line named wrongly (a script that
    /// cannot be read), 1 for a place it named that cannot be used now (the state directory:
    /// unwritable, full, a file where a directory should be), as for any other failure.
    public var exitStatus: Int32 = 2
    public var description: String { message }

    public init(message: String, exitStatus: Int32 = 2) {
        self.message = message
        self.exitStatus = exitStatus
    }
}
