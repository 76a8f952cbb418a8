import WharfDBus
import WharfSystem

/// One portal dialog, from the FileChooser call to its Response (or Close).
///
/// Order of events on the bus: subscribe to Response on the predicted request path, call
/// OpenFile/SaveFile/SaveFiles (the subscription is in force before the call leaves, see
/// ``BusConnection/subscribe(_:installed:handler:)``), take the reply's handle and the portal's
/// unique name, then wait for Response. A cancel sends `Request.Close` to that handle (as soon as
/// it is known) and ends the dialog when the portal acknowledged it, so the window is gone by
/// the time the caller hears `cancelled`. A portal that has not answered the call within
/// `closeTimeoutMs` does not hold the cancel up: the dialog ends, and Close follows the late
/// answer, so no window is left open.
///
/// Only the portal that answered the call speaks for its Request: any connection on the bus may
/// emit a signal with the request's path (its token is no secret from a bus monitor), so a
/// Response from another sender is ignored. One that comes before the reply, when the portal's
/// unique name is not known yet, waits for it. (The name cannot go into the match rule: before
/// the call it may not be known at all, the call itself starting the portal by D-Bus activation,
/// and a stale one would drop the real Response and leave the dialog open for good.)
final class PortalDialog: Sendable {
    private struct State {
        var token: String?
        var subscriptions: [BusSubscription] = []
        /// The request object, once the portal answered the call.
        var handle: String?
        /// The portal's unique name, from the reply's sender.
        var owner: String?
        /// Responses that came before the reply, to be judged by its sender (the first few:
        /// any connection on the bus can send them, and the portal sends one).
        var early: [BusMessage] = []
        var closing = false
        var done = false
    }

    let request: DesktopDialogRequest
    let session: DesktopDialogSession
    private let callTimeoutMs: Int
    private let closeTimeoutMs: Int
    private let state = Locked(State())
    private let link = Locked<PortalLink?>(nil)

    init(request: DesktopDialogRequest, session: DesktopDialogSession, callTimeoutMs: Int, closeTimeoutMs: Int) {
        self.request = request
        self.session = session
        self.callTimeoutMs = callTimeoutMs
        self.closeTimeoutMs = closeTimeoutMs
    }

    // MARK: Starting

    /// Runs on the connection's delivery queue.
    func start(on link: PortalLink) {
        if session.cancelRequested != nil {
            finish(.cancelled(.caller))   // nothing was shown yet
            return
        }
        self.link.withValue { $0 = link }
        let connection = link.connection
        let token = PortalRequestPath.newToken()
        let expected = PortalRequestPath.path(sender: connection.uniqueName, token: token)
        let call = PortalCall(request: request, token: token)
        state.withValue { $0.token = token }
        link.register(self, token: token)
        subscribe(path: expected)
        connection.call(destination: Portal.busName, path: Portal.objectPath, interface: Portal.fileChooser,
                        member: call.method, body: call.body, timeoutMs: callTimeoutMs) { [self] reply in
            called(reply, expected: expected)
        }
    }

    private func subscribe(path: String) {
        guard let connection = link.withValue({ $0 })?.connection else { return }
        let rule = BusMatchRule(path: path, interface: Portal.request, member: "Response")
        let subscription = connection.subscribe(rule) { [weak self] message in self?.responded(message) }
        // A dialog that has ended already unsubscribed from everything it held: this one too.
        let kept = state.withValue { state -> Bool in
            if !state.done { state.subscriptions.append(subscription) }
            return !state.done
        }
        if !kept { connection.unsubscribe(subscription) }
    }

    private func called(_ reply: Result<BusMessage, BusError>, expected: String) {
        switch reply {
        case .failure(let error):
            fail(PortalErrors.callFailed(request, error, timeoutMs: callTimeoutMs))
        case .success(let message):
            guard let handle = message.body.first?.stringValue else {
                return fail("the desktop portal answered \(PortalCall(request: request, token: "").method) without a request handle")
            }
            let (closeNow, early) = state.withValue { state -> (Bool, [BusMessage]) in
                state.handle = handle
                state.owner = message.sender ?? ""
                defer { state.early = [] }
                return (state.closing, state.early)
            }
            // A portal older than 0.9 chose its own path: listen there too (the old race).
            if handle != expected { subscribe(path: handle) }
            // Cancelled while the call was in flight: the window this handle names is up, even
            // when the dialog has ended meanwhile (the portal answered after closeTimeoutMs),
            // and nobody else will take it down.
            if closeNow { sendClose() }
            for response in early { responded(response) }
        }
    }

    // MARK: Ending

    private func responded(_ message: BusMessage) {
        let fromThePortal = state.withValue { state -> Bool in
            guard let owner = state.owner else {
                if !state.done && state.early.count < 8 { state.early.append(message) }
                return false
            }
            return message.sender == owner
        }
        guard fromThePortal else { return }
        guard message.body.count >= 2, let code = message.body[0].uint32Value else {
            return fail("the desktop portal sent a malformed Response (\(message.body.map(\.signature).joined()))")
        }
        let results = message.body[1].dictionary ?? [:]
        finish(PortalResponse.result(code: code, results: results, request: request))
    }

    /// The caller's cancel (any thread): close the real dialog, then end.
    func cancel() {
        let action = state.withValue { state -> Int in
            guard !state.done, !state.closing else { return 0 }
            state.closing = true
            if state.handle != nil { return 1 }         // shown: Close it
            return state.token == nil ? 2 : 0           // not started: end; call in flight: Close on reply
        }
        switch action {
        case 1: sendClose()
        case 2: startThread { [self] in finish(.cancelled(.caller)) }
        default:
            // The call is in flight: Close follows its reply, however late. A portal that never
            // replies must not hold the cancel up until the call's own timeout.
            let wait = closeTimeoutMs
            startThread { [self] in
                ProcessControl.sleep(milliseconds: wait)
                finish(.cancelled(.caller))
            }
        }
    }

    private func sendClose() {
        let (handle, owner) = state.withValue { ($0.handle, $0.owner) }
        guard let handle, let connection = link.withValue({ $0 })?.connection else { return }
        connection.call(destination: owner ?? Portal.busName, path: handle, interface: Portal.request, member: "Close",
                        timeoutMs: closeTimeoutMs) { [self] _ in
            // Closed, or the portal could not say so: either way the caller asked to end it.
            finish(.cancelled(.caller))
        }
    }

    func fail(_ reason: String) { finish(.failed(reason)) }

    /// Whether `owner` is the portal that holds this dialog.
    func isShown(by owner: String) -> Bool { state.withValue { !$0.done && $0.owner == owner } }

    private func finish(_ result: DesktopDialogResult) {
        let (subscriptions, token) = state.withValue { state -> ([BusSubscription], String?) in
            guard !state.done else { return ([], nil) }
            state.done = true
            defer { state.subscriptions.removeAll() }
            return (state.subscriptions, state.token)
        }
        if let link = link.withValue({ $0 }) {
            for subscription in subscriptions { link.connection.unsubscribe(subscription) }
            if let token { link.unregister(token: token) }
        }
        session.finish(result)
    }
}

/// Sentences for portal failures.
enum PortalErrors {
    static func callFailed(_ request: DesktopDialogRequest, _ error: BusError, timeoutMs: Int) -> String {
        let method = PortalCall(request: request, token: "").method
        if error.isNoSuchService {
            return "the desktop portal is not available: nothing on the session bus provides \(Portal.busName) (\(error.message))"
        }
        if error.isTimeout {
            return "the desktop portal did not answer \(method) within \(timeoutMs) ms"
        }
        if error.name == BusError.Names.noReply || error.name == BusError.Names.disconnected {
            return "the desktop portal went away before answering \(method): \(error.message)"
        }
        return "the desktop portal refused \(method): \(error.message) (\(error.name))"
    }
}
