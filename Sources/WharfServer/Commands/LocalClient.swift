import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// A client of a server running in this process, over a pair of pipes: how `wharf pick` and
/// `wharf save` ask for a dialog. It speaks the protocol like any editor would, so the commands
/// get exactly the checks, presenters and atomic writes a client gets.
final class LocalClient: Sendable {
    private let connection: Connection
    private let server: Server
    private let notifications = Locked<[Notification]>([])
    private let arrived = ConditionLock()
    private let served = Locked<Int32?>(nil)

    init(server: Server) throws(SystemError) {
        self.server = server
        let toServer = try makePipe(), fromServer = try makePipe()
        let serverSide = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write),
                                    options: Connection.Options(framing: .lsp), logger: server.logger)
        connection = Connection(input: FileDescriptor(taking: fromServer.read), output: FileDescriptor(taking: toServer.write),
                                options: Connection.Options(framing: .lsp), logger: server.logger)
        let (notifications, arrived, served) = (self.notifications, self.arrived, self.served)
        startThread {
            let code = server.serve(serverSide)
            arrived.withLock {
                served.withValue { $0 = code }
                arrived.broadcast()
            }
        }
        connection.start(Connection.Handler(
            request: { request, reply in reply.fail(.methodNotFound(request.method)) },
            notification: { notification in
                arrived.withLock {
                    notifications.withValue { $0.append(notification) }
                    arrived.broadcast()
                }
            }
        ), onEnd: { _ in arrived.withLock { arrived.broadcast() } })
    }

    /// Sends `request` and waits for its answer.
    func send<R: RequestMessage>(_ request: R) throws(ResponseError) -> R.Result {
        let answer = Locked<Result<JSON, ResponseError>?>(nil)
        connection.send(request: R.method, params: request.json) { [arrived] result in
            arrived.withLock {
                answer.withValue { $0 = result }
                arrived.broadcast()
            }
        }
        let result = arrived.withLock {
            while true {
                if let result = answer.withValue({ $0 }) { return result }
                arrived.wait()
            }
        }
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
        arrived.withLock {
            while true {
                if let found = notifications.withValue({ $0 }).first(where: {
                    $0.method == method && $0.params?["dialogId"]?.stringValue == dialogId
                }) {
                    return found
                }
                if served.withValue({ $0 }) != nil { return nil }
                arrived.wait()
            }
        }
    }

    /// Grants `files` to this client, as a pick would: the person named them on the command
    /// line, which is the same consent. Read-write, each as it is now (a link as the link).
    func grant(_ files: [FilePath]) throws(SystemError) {
        guard let session = server.liveSessions.first else { return }
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
        arrived.withLock {
            while true {
                for notification in notifications.withValue({ $0 }) where notification.params?["dialogId"]?.stringValue == dialogId {
                    if notification.method == DialogCompletedNotification.method,
                       let completed = try? DialogCompletedNotification.parse(notification.params).0 {
                        return .completed(completed)
                    }
                    if notification.method == DialogCancelledNotification.method,
                       let cancelled = try? DialogCancelledNotification.parse(notification.params).0 {
                        return .cancelled(cancelled)
                    }
                }
                if served.withValue({ $0 }) != nil { return .lost }
                arrived.wait()
            }
        }
    }

    /// Ends the session as a client should (`shutdown`, `exit`) and waits for the server's end.
    func close() {
        _ = try? send(ShutdownRequest())
        connection.send(notification: ExitNotification.method, params: nil)
        let deadline = Deadline(secondsFromNow: 5)
        while served.withValue({ $0 }) == nil && !deadline.hasPassed { ProcessControl.sleep(milliseconds: 1) }
        connection.closeOutput()
        server.close()
    }
}
