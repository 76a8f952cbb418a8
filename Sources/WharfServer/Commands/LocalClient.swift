import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// A client of a server running in this process, over a pair of pipes: how `wharf pick` and
/// `wharf save` ask for a dialog. It speaks the protocol like any editor would, so the commands
/// get exactly the checks, presenters and atomic writes a client gets. (Or of the daemon, over
/// its socket: how `wharf portal` reaches the daemon's presenter connection.)
final class LocalClient: Sendable {
    private let connection: Connection
    private let server: Server?
    /// What the server sent, and its session's exit status once it has ended: waited for.
    private let heard = WaitableValue(Heard())

    private struct Heard {
        var notifications: [Notification] = []
        var served: Int32?
        /// The server's session for this client, when the server runs in this process.
        var session: ClientSession?
    }

    init(server: Server) throws(SystemError) {
        self.server = server
        let toServer = try makePipe(), fromServer = try makePipe()
        let serverSide = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write),
                                    options: Connection.Options(framing: .lsp), logger: server.logger)
        connection = Connection(input: FileDescriptor(taking: fromServer.read), output: FileDescriptor(taking: toServer.write),
                                options: Connection.Options(framing: .lsp), logger: server.logger)
        let heard = self.heard
        startThread {
            let code = server.serve(serverSide, events: SessionEvents(started: { session in
                heard.change { $0.session = session }
            }))
            heard.change { $0.served = code }
        }
        Self.start(connection, heard: heard, onEnd: {})
    }

    /// A client of the daemon listening on `socket` (already connected).
    init(socket: FileDescriptor, logger: Logger) throws(SystemError) {
        server = nil
        let output = try socket.duplicate()
        connection = Connection(input: socket, output: output, options: Connection.Options(framing: .lsp), logger: logger)
        let heard = self.heard
        // The daemon's end is the session's end.
        Self.start(connection, heard: heard, onEnd: { heard.change { $0.served = 0 } })
    }

    private static func start(_ connection: Connection, heard: WaitableValue<Heard>, onEnd: @escaping @Sendable () -> Void) {
        connection.start(Connection.Handler(
            request: { request, reply in reply.fail(.methodNotFound(request.method)) },
            notification: { notification in heard.change { $0.notifications.append(notification) } }
        ), onEnd: { _ in onEnd() })
    }

    /// Sends `request` and waits for its answer.
    func send<R: RequestMessage>(_ request: R) throws(ResponseError) -> R.Result {
        // Every request is answered, by the server or, if the connection ends first, with the
        // connection's closing error.
        let answer = OneShot<Result<JSON, ResponseError>>()
        connection.send(request: R.method, params: request.json) { result in answer.set(result) }
        let result = answer.wait()
        do {
            return try R.Result(json: try result.get())
        } catch let error as ResponseError {
            throw error
        } catch {
            throw ResponseError.internalError("an answer to \(R.method) that does not read: \(error)")
        }
    }

    /// Waits for the server's notification `method` about `dialogId`; nil if the server went
    /// away first.
    func notification(_ method: String, about dialogId: String) -> Notification? {
        heard.wait { heard -> Notification?? in
            if let found = heard.notifications.first(where: {
                $0.method == method && $0.params?["dialogId"]?.stringValue == dialogId
            }) {
                return .some(found)
            }
            return heard.served != nil ? .some(nil) : nil
        }
    }

    /// Grants `files` to this client, as a pick would: the person named them on the command
    /// line, which is the same consent. Read-write, each as it is now (a link as the link). Only
    /// for a server in this process (the daemon's clients are other processes).
    func grant(_ files: [FilePath]) throws(SystemError) {
        guard let server, let session = heard.withValue({ $0.session }) else { return }
        for path in files {
            let status = try FileStatus.ofLink(path)
            let identity = try FileIdentity.of(path, followSymlinks: false)
            let born = FileBirth.of(path, followSymlinks: false)
            server.access.grant(app: session.appIdentity, client: session.accessClient, path: path, identity: identity,
                                birth: born?.inode == identity.inode ? born?.birth : nil,
                                isDirectory: status.kind == .directory, readOnly: false, isSymlink: status.kind == .symlink)
        }
    }

    /// How a dialog ended.
    enum Ending {
        case completed(DialogCompletedNotification)
        case cancelled(DialogCancelledNotification)
        /// The server went away first.
        case lost
    }

    /// Waits for the dialog's `dialog/completed` or `dialog/cancelled`.
    func ending(of dialogId: String) -> Ending {
        heard.wait { heard -> Ending? in
            for notification in heard.notifications where notification.params?["dialogId"]?.stringValue == dialogId {
                if notification.method == DialogCompletedNotification.method,
                   let completed = try? DialogCompletedNotification.parse(notification.params).0 {
                    return .completed(completed)
                }
                if notification.method == DialogCancelledNotification.method,
                   let cancelled = try? DialogCancelledNotification.parse(notification.params).0 {
                    return .cancelled(cancelled)
                }
            }
            return heard.served != nil ? .lost : nil
        }
    }

    /// Ends the session as a client should (`shutdown`, `exit`) and waits for the server's end.
    func close() {
        _ = try? send(ShutdownRequest())
        connection.send(notification: ExitNotification.method, params: nil)
        _ = heard.wait(until: Deadline(secondsFromNow: 5)) { $0.served }
        connection.closeOutput()
        server?.close()
    }
}
