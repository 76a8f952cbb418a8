#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import WharfContentTypes
import WharfJSON
import WharfJSONRPC
import WharfSystem

/// One connected client: its lifecycle, its identity, and everything it owns.
///
/// The lifecycle follows the LSP: requests before `initialize` get -32002 and notifications
/// before it are dropped (`exit` excepted); `initialize` comes once; after `shutdown` requests get
/// -32600; `exit` ends the session with 0 after `shutdown` and 1 without. End of input and
/// signals end the session the same way.
public final class ClientSession: Sendable {
    enum Lifecycle: Sendable {
        case uninitialized, initialized, shuttingDown
    }

    struct State: Sendable {
        var lifecycle = Lifecycle.uninitialized
        /// `clientInfo.name`, the app identity grants and bookmarks belong to.
        var appIdentity = "unnamed-client"
        var presentsDialogs = false
        var finished = false
    }

    public let id: UInt64
    let server: Server
    public let connection: Connection
    let state = Locked(State())
    /// The client's content types: the system registry plus what it declared.
    let types: Locked<ContentTypeScope>
    /// Called once, when the session has ended and everything owed to the client is written.
    private let onFinish: @Sendable (Int32) -> Void

    public init(server: Server, connection: Connection, onFinish: @escaping @Sendable (Int32) -> Void) {
        self.server = server
        self.id = server.makeClientID()
        self.connection = connection
        self.onFinish = onFinish
        self.types = Locked(ContentTypeScope(registry: server.registry))
        server.register(self)
    }

    var logger: Logger { server.logger }
    public var appIdentity: String { state.withValue { $0.appIdentity } }

    /// The connection handler that feeds this session.
    public var handler: Connection.Handler {
        Connection.Handler(
            request: { [self] request, reply in handle(request, reply) },
            notification: { [self] notification in handle(notification) }
        )
    }

    // MARK: Dispatch

    private func handle(_ request: Request, _ reply: Reply) {
        let lifecycle = state.withValue { $0.lifecycle }
        if request.method == "initialize" {
            guard lifecycle == .uninitialized else {
                reply.fail(.invalidRequest("initialize may be sent only once"))
                return
            }
            do {
                reply.succeed(try initialize(Params(request.params)))
            } catch {
                reply.fail(error)
            }
            return
        }
        switch lifecycle {
        case .uninitialized:
            reply.fail(ResponseError(.serverNotInitialized, "the server is not initialized: send initialize first"))
            return
        case .shuttingDown:
            reply.fail(.invalidRequest("the server is shutting down: only exit is accepted after shutdown"))
            return
        case .initialized:
            break
        }
        guard let handler = server.methods[request.method] else {
            reply.fail(.methodNotFound(request.method))
            return
        }
        do {
            switch handler {
            case .immediate(let body): reply.succeed(try body(self, Params(request.params)))
            case .deferred(let body): try body(self, Params(request.params), reply)
            }
        } catch {
            reply.fail(ResponseError(answering: error, logger: logger))
        }
    }

    private func handle(_ notification: Notification) {
        let lifecycle = state.withValue { $0.lifecycle }
        if notification.method == "exit" {
            finish(exitCode: lifecycle == .shuttingDown ? 0 : 1, reason: "exit")
            return
        }
        guard lifecycle != .uninitialized else {
            logger.info("dropped \(notification.method): not initialized yet")
            return
        }
        switch notification.method {
        case "initialized":
            break
        case "$/setTrace":
            if let value = notification.params?["value"]?.stringValue, let level = TraceLevel(rawValue: value) {
                setTrace(level)
            } else {
                logger.warning("$/setTrace needs value \"off\", \"messages\" or \"verbose\"")
            }
        default:
            // Unknown notifications, `$/` ones included, are ignored, as JSON-RPC and the LSP say.
            logger.info("ignored notification \(notification.method)")
        }
    }

    // MARK: Ending

    func beginShutdown() {
        state.withValue { $0.lifecycle = .shuttingDown }
    }

    /// The exit code the session ends with when input ends or a signal arrives.
    public var exitCodeForEndOfInput: Int32 {
        state.withValue { $0.lifecycle == .shuttingDown ? 0 : 1 }
    }

    /// Ends the session: releases what the client held, writes what is owed, then calls
    /// `onFinish` once. Safe to call from any thread, any number of times.
    public func finish(exitCode: Int32, reason: String) {
        let first = state.withValue { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        guard first else { return }
        logger.info("session \(id) ends (\(reason)), exit code \(exitCode)")
        releaseEverything()
        connection.waitForPendingReplies(seconds: 2)
        connection.flush(seconds: 2)
        connection.closeOutput()
        onFinish(exitCode)
    }

    /// Everything the client held goes: open dialogs end (`dialog/cancelled` with reason
    /// `disconnected`, still written to the client if it is reading), leases are released and
    /// the session's grants dropped (bookmarks, which belong to the app, stay).
    private func releaseEverything() {
        server.engine.disconnect(client: dialogClient)
        // An export being written is rolled back before the process may end.
        server.engine.waitForWrites(client: dialogClient)
        do {
            let released = try server.access.endSession(client: accessClient)
            if released > 0 { logger.info("released \(released) lease(s) left open") }
        } catch {
            logger.error("could not release the session's leases: \(error)")
        }
        server.unregister(self)
    }

    /// Ends the session when the editor that spawned us dies (`initialize.processId`).
    func watchParent(_ pid: Int32) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler { [weak self] in
            guard kill(pid, 0) != 0 && errno == ESRCH else { return }
            timer.cancel()
            guard let self else { return }
            self.logger.warning("process \(pid) that started us is gone; ending")
            self.finish(exitCode: self.exitCodeForEndOfInput, reason: "parent process \(pid) exited")
        }
        timer.resume()
    }
}
