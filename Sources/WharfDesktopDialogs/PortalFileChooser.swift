import WharfDBus
import WharfSystem

/// Native file dialogs through xdg-desktop-portal's FileChooser on the session bus.
///
/// One connection is opened on first use and shared by every dialog and probe; if it is
/// lost, its dialogs fail and the next use opens a new one. Nothing here blocks the caller:
/// `present` and `probe` hand their work to the connection's threads.
///
/// ```swift
/// let portal = PortalFileChooser()
/// let session = portal.present(DesktopDialogRequest(kind: .open(multiple: false, directory: false), title: "Open")) { result in
///     // .chosen(choice) / .cancelled(.user) / .failed(reason), exactly once, on a portal thread
/// }
/// session.cancel()   // closes the real window (Request.Close); the result is then .cancelled(.caller)
/// ```
public final class PortalFileChooser: DesktopPresenter {
    public let kind = DesktopPresenterKind.portal

    private enum LinkState {
        case idle
        case opening([@Sendable (Result<PortalLink, PortalUnavailable>) -> Void])
        case open(PortalLink)
    }

    private let environment: [String: String]
    private let connectTimeoutMs: Int
    private let callTimeoutMs: Int
    private let closeTimeoutMs: Int
    private let link = Locked(LinkState.idle)

    /// - Parameters:
    ///   - environment: where to find the session bus (`DBUS_SESSION_BUS_ADDRESS`, `XDG_RUNTIME_DIR`).
    ///   - connectTimeoutMs: how long connecting to the session bus may take.
    ///   - callTimeoutMs: how long the portal may take to *accept* a dialog (it answers the call
    ///     at once and the human's answer later, which has no time limit here).
    ///   - closeTimeoutMs: how long the portal may take to acknowledge `Request.Close`.
    public init(environment: [String: String] = BusAddress.processEnvironment(), connectTimeoutMs: Int = 5000,
                callTimeoutMs: Int = 25_000, closeTimeoutMs: Int = 5000) {
        self.environment = environment
        self.connectTimeoutMs = connectTimeoutMs
        self.callTimeoutMs = callTimeoutMs
        self.closeTimeoutMs = closeTimeoutMs
    }

    // MARK: Dialogs

    public func present(_ request: DesktopDialogRequest, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession {
        let session = DesktopDialogSession(completion: completion)
        let dialog = PortalDialog(request: request, session: session, callTimeoutMs: callTimeoutMs, closeTimeoutMs: closeTimeoutMs)
        session.onCancel { _ in dialog.cancel() }
        withLink(timeoutMs: connectTimeoutMs) { result in
            switch result {
            case .success(let link): dialog.start(on: link)
            case .failure(let failure): dialog.fail(failure.reason)
            }
        }
        return session
    }

    // MARK: Probing

    /// Whether the portal can show file dialogs, decided within `timeoutMs`: a session bus, a
    /// portal that answers at all (one that is installed but hangs, as on some bare window
    /// managers, must not leave a dialog waiting), and a FileChooser interface (whose `version`
    /// is reported). `completion` runs on a thread of the presenter's, or before `probe` returns
    /// when there is no session bus to ask.
    public func probe(timeoutMs: Int, completion userCompletion: @escaping @Sendable (DesktopPresenterProbe) -> Void) {
        // No bus (a console, an SSH session, CI): the answer is known now, and starting the
        // deadline's thread and another to say so would cost a server's start-up two threads.
        if case .failure(let error) = BusAddress.session(environment: environment) {
            return userCompletion(DesktopPresenterProbe(kind: .portal, problem: error.message))
        }
        let deadline = Deadline(secondsFromNow: Double(timeoutMs) / 1000)
        let started = monotonicNanoseconds()
        // Whatever is slow (a connection another caller is still opening, a bus that accepts
        // and never answers), the answer comes by the deadline.
        let answered = Locked(false)
        let completion: @Sendable (DesktopPresenterProbe) -> Void = { probe in
            let first = answered.withValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { userCompletion(probe) }
        }
        startThread {
            ProcessControl.sleep(milliseconds: timeoutMs + 50)
            completion(DesktopPresenterProbe(kind: .portal, problem: "the desktop portal did not answer within \(timeoutMs) ms (the session bus or xdg-desktop-portal hangs)"))
        }
        withLink(timeoutMs: timeoutMs) { result in
            let link: PortalLink
            switch result {
            case .failure(let failure): return completion(DesktopPresenterProbe(kind: .portal, problem: failure.reason))
            case .success(let opened): link = opened
            }
            let remaining = max(timeoutMs - Int((monotonicNanoseconds() - started) / 1_000_000), 1)
            if deadline.hasPassed {
                return completion(DesktopPresenterProbe(
                    kind: .portal, problem: "the D-Bus session bus did not answer within \(timeoutMs) ms"))
            }
            link.connection.call(
                destination: Portal.busName, path: Portal.objectPath, interface: Portal.properties, member: "Get",
                body: [.string(Portal.fileChooser), .string("version")], timeoutMs: remaining
            ) { reply in
                completion(Self.probeResult(reply, timeoutMs: timeoutMs))
            }
        }
    }

    /// ``probe(timeoutMs:completion:)``, waiting for the answer (never with a lock held).
    public func probeAndWait(timeoutMs: Int) -> DesktopPresenterProbe {
        let answer = OneShot<DesktopPresenterProbe>()
        probe(timeoutMs: timeoutMs) { answer.set($0) }
        return answer.wait()
    }

    static func probeResult(_ reply: Result<BusMessage, BusError>, timeoutMs: Int) -> DesktopPresenterProbe {
        switch reply {
        case .success(let message):
            guard let version = message.body.first?.unwrapped.uint32Value else {
                return DesktopPresenterProbe(kind: .portal, problem: "xdg-desktop-portal answered the FileChooser version with something that is not a number")
            }
            return DesktopPresenterProbe(kind: .portal, detail: "FileChooser version \(version)")
        case .failure(let error):
            if error.isNoSuchService {
                return DesktopPresenterProbe(kind: .portal, problem: "xdg-desktop-portal is not installed: nothing on the session bus provides \(Portal.busName)")
            }
            if error.isTimeout {
                return DesktopPresenterProbe(kind: .portal, problem: "xdg-desktop-portal did not answer within \(timeoutMs) ms (it is installed but hangs, as it does on some bare window managers without a working portal backend)")
            }
            switch error.name {
            case BusError.Names.unknownInterface, BusError.Names.invalidArgs, BusError.Names.unknownProperty,
                 BusError.Names.unknownMethod, BusError.Names.unknownObject:
                return DesktopPresenterProbe(kind: .portal, problem: "xdg-desktop-portal has no FileChooser: no portal backend for this desktop provides one (install xdg-desktop-portal-gtk, -kde or -gnome, or choose one in portals.conf)")
            default:
                return DesktopPresenterProbe(kind: .portal, problem: "xdg-desktop-portal answered with an error: \(error.message) (\(error.name))")
            }
        }
    }

    // MARK: The shared connection

    /// Hands `body` the open connection (opening it first when needed), on the connection's
    /// delivery queue; or the reason there is none, on a thread of its own.
    private func withLink(timeoutMs: Int, _ body: @escaping @Sendable (Result<PortalLink, PortalUnavailable>) -> Void) {
        enum Step { case use(PortalLink), wait, open }
        let step = link.withValue { state -> Step in
            switch state {
            case .open(let link) where link.connection.isOpen:
                return .use(link)
            case .opening(let waiters):
                state = .opening(waiters + [body])
                return .wait
            case .open, .idle:
                state = .opening([body])
                return .open
            }
        }
        switch step {
        case .use(let link):
            link.connection.perform { body(.success(link)) }
        case .wait:
            break
        case .open:
            let address: String
            switch BusAddress.session(environment: environment) {
            case .failure(let error):
                let waiters = takeWaiters(.idle)
                return startThread { for waiter in waiters { waiter(.failure(PortalUnavailable(reason: error.message))) } }
            case .success(let found):
                address = found
            }
            // The link this connection became, for its disconnect: by the time that is
            // reported, a newer link may already be open or opening (a dialog presented after
            // the connection closed opens one at once), and it must not be mistaken for this one.
            // Taken when the disconnect is reported, which ends the cycle connection → handler
            // → link → connection.
            let opened = Locked<PortalLink?>(nil)
            BusConnection.open(address: address, description: "wharf-portal", timeoutMs: timeoutMs, onDisconnect: { [weak self] error in
                guard let lost = opened.withValue({ link in defer { link = nil }; return link }) else { return }
                self?.connectionLost(lost, error)
            }) { [self] result in
                switch result {
                case .success(let connection):
                    let link = PortalLink(connection: connection)
                    opened.withValue { $0 = link }
                    for waiter in takeWaiters(.open(link)) { waiter(.success(link)) }
                case .failure(let error):
                    let reason = error.isTimeout
                        ? "the D-Bus session bus at \(address) did not answer within \(timeoutMs) ms"
                        : error.message
                    for waiter in takeWaiters(.idle) { waiter(.failure(PortalUnavailable(reason: reason))) }
                }
            }
        }
    }

    private func takeWaiters(_ next: LinkState) -> [@Sendable (Result<PortalLink, PortalUnavailable>) -> Void] {
        link.withValue { state in
            defer { state = next }
            if case .opening(let waiters) = state { return waiters }
            return []
        }
    }

    /// `lost`'s connection ended: its dialogs fail, whatever link is current by now.
    private func connectionLost(_ lost: PortalLink, _ error: BusError) {
        link.withValue { state in
            if case .open(let current) = state, current === lost { state = .idle }
        }
        lost.lost("the connection to the D-Bus session bus was lost while the dialog was open: \(error.message)")
    }
}

/// Why the portal presenter has no connection (a sentence).
struct PortalUnavailable: Error {
    let reason: String
}
