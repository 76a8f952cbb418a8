import Dispatch
import WharfAccess
import WharfContentTypes
import WharfDialogs
import WharfFileWriting
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// What every client of one `wharf` process shares: configuration, the method table, the
/// content-type registry, the dialog engine and the access store.
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
    /// The `--presenter script:FILE` presenter, shared by every client.
    let scriptPresenter: ScriptPresenter?
    private let nextClientID = Locked<UInt64>(1)
    private let sessions = SessionDirectory()

    public init(options: ServerOptions, logger: Logger) throws(StartupError) {
        self.options = options
        self.logger = logger
        self.registry = .system
        do {
            let (store, warnings) = try AccessStore.open(stateDirectory: options.stateDirectory)
            for warning in warnings { logger.warning(warning) }
            self.access = store
        } catch {
            throw StartupError(message: "cannot open the state store: \(error)")
        }
        if let script = options.scriptFile {
            self.scriptPresenter = ScriptPresenter(steps: try ScriptFile.load(script))
        } else {
            self.scriptPresenter = nil
        }
        let sessions = self.sessions
        self.engine = DialogEngine(
            maxDialogsPerClient: options.maxDialogsPerClient,
            memory: StoreDirectoryMemory(store: access, logger: logger),
            writer: RecordingExportWriter(store: access, logger: logger),
            sink: { client, event in sessions[client.rawValue]?.deliver(event) }
        )
        removeOrphanedTemporaries()
    }

    /// A new id for each connection; unique within this process.
    func makeClientID() -> UInt64 {
        nextClientID.withValue { id in
            defer { id += 1 }
            return id
        }
    }

    func register(_ session: ClientSession) { sessions[session.id] = session }
    func unregister(_ session: ClientSession) { sessions[session.id] = nil }

    /// Runs work that may wait on the disk off the read loop.
    func background(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: work)
    }

    /// Temporary files left in directories we wrote into by a process that crashed mid-write.
    private func removeOrphanedTemporaries() {
        guard let directories = try? access.writtenDirectories() else { return }
        for directory in directories {
            let removed = AtomicWriter.removeOrphans(in: directory)
            for path in removed { logger.info("removed orphaned temporary file \(path)") }
        }
    }

    /// What `initialize` reports under `capabilities`.
    var capabilities: JSON {
        var presenters: [JSON] = ["frontend"]
        if scriptPresenter != nil { presenters.append("script") }
        return [
            "ping": true,
            "framings": .array(Framing.allCases.map { .string($0.rawValue) }),
            "contentTypes": true,
            "importer": true,
            "exporter": true,
            "access": ["bookmarks": true, "fileIO": true, "maxTransferBytes": .int(Int64(AccessStore.maximumTransferLength))],
            "presenters": .array(presenters),
            "maxDialogsPerClient": .int(Int64(options.maxDialogsPerClient)),
        ]
    }
}

/// The live sessions by id, so the dialog engine's events (delivered under its lock, in its
/// order) reach the session that owns the dialog.
final class SessionDirectory: Sendable {
    private let sessions = Locked<[UInt64: ClientSession]>([:])

    subscript(id: UInt64) -> ClientSession? {
        get { sessions.withValue { $0[id] } }
        set { sessions.withValue { $0[id] = newValue } }
    }
}

/// Why the server could not start (bad script file, unusable state directory).
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
