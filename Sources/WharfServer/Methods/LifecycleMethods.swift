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
        let presenter = server.presenters.choose(for: message.capabilities, session: self)
        state.withValue { state in
            state.lifecycle = .initialized
            if let name = message.clientInfo?.name, !name.isEmpty { state.appIdentity = name }
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
                                       protocolVersion: ServerInfo.protocolVersion, capabilities: capabilities).json)
    }
}
