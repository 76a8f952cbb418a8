import WharfAccess
import WharfJSONRPC
import WharfProtocol

extension MethodTable {
    /// `ping` and `shutdown`; `initialize` and the notifications are the session's own
    /// (``ClientSession``), since they move its lifecycle.
    mutating func addLifecycleMethods() {
        onReadLoop(PingRequest.self) { _, _ in Empty() }
        onReadLoop(ShutdownRequest.self) { session, _ in
            session.beginShutdown()
            return Null()
        }
    }
}

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
