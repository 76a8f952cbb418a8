import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// The daemon's presenter connection: the one connection that said `"role": "presenter"` in
/// `initialize` and shows the dialogs of every client that does not show its own (the
/// portal's frontend and backend split: apps ask, one trusted process draws).
///
/// It keeps, for each dialog it forwarded, the way to answer it, and hands that only to the
/// presenter connection it was shown to: `dialog/choose` and its siblings from anyone else find
/// nothing. Dialog ids are unique in the whole process (the engine counts them), so a
/// presenter serving many clients never sees two alike.
///
/// Who may register, and what happens around it, is decided here:
///
/// - only on a server that accepts presenter connections (the daemon; over standard I/O there
///   is nobody else to present for), and only a peer that is not sandboxed: the presenter
///   chooses files for every app, which only a process that could read them anyway may do;
/// - one at a time: while one is registered, another is refused (`presenterRefused`);
/// - when it goes away, every dialog it was showing ends with `presenterFailed` (the app may
///   present it again: its next dialog goes to the next presenter connection, or to the
///   daemon's own presenter).
final class PresenterHub: Sendable {
    private struct Route {
        let responder: DialogResponder
        /// The presenter connection's session id.
        let presenter: UInt64
        /// The owning client's dialog queue: the presenter's answers for this dialog run there,
        /// in order, and beside those for other clients' dialogs.
        let queue: SerialQueue
    }

    private struct State {
        var presenter: ClientSession?
        var routes: [DialogID: Route] = [:]
        /// Dialogs that ended after they were forwarded, so late input is told
        /// `dialogEnded` rather than `dialogNotFound`; bounded.
        var ended = RecentlyEnded()
    }

    private let state = Locked(State())
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The presenter connection now, if any.
    var presenter: ClientSession? { state.withValue { $0.presenter } }
    var hasPresenter: Bool { state.withValue { $0.presenter != nil } }

    /// Makes `session` the presenter connection, or says why not.
    func register(_ session: ClientSession) throws(ResponseError) {
        let current = state.withValue { state -> ClientSession? in
            if let current = state.presenter { return current }
            state.presenter = session
            return nil
        }
        if let current {
            let who = current.identityDescription
            throw ResponseError(WharfErrorCode.presenterRefused,
                                "another connection (\(who)) presents dialogs already: one presenter connection at a time")
        }
        logger.info("session \(session.id) (\(session.identityDescription)) presents dialogs for the daemon's clients")
    }

    /// The presenter connection ended: every dialog it was showing ends with `presenterFailed`.
    func unregister(_ session: ClientSession) {
        let orphaned = state.withValue { state -> [DialogResponder] in
            guard state.presenter === session else { return [] }
            state.presenter = nil
            let mine = state.routes.filter { $0.value.presenter == session.id }
            for id in mine.keys { state.routes[id] = nil }
            return mine.values.map(\.responder)
        }
        if !orphaned.isEmpty {
            logger.warning("the presenter connection went away with \(orphaned.count) dialog(s) open; they end with presenterFailed")
        }
        for responder in orphaned {
            try? responder.fail("the presenter connection went away before the dialog was answered")
        }
    }

    /// Forwards `dialog` to the presenter connection, if there is one (false otherwise), as
    /// `message` (``showMessage(_:client:)``), holding `charge` until it has been written.
    func show(_ dialog: PresentedDialog, message: PreparedNotification, charge: BudgetCharge?, queue: SerialQueue) -> Bool {
        let presenter = state.withValue { state -> ClientSession? in
            guard let presenter = state.presenter else { return nil }
            state.routes[dialog.id] = Route(responder: dialog.responder, presenter: presenter.id, queue: queue)
            return presenter
        }
        guard let presenter else { return false }
        presenter.connection.send(message, charging: charge)
        return true
    }

    /// The `presenter/show` the presenter connection gets for `dialog` of `client`, serialised,
    /// so that its size is known before the app is told of the dialog.
    static func showMessage(_ dialog: PresentedDialog, client: ClientIdentityInfo) -> PreparedNotification {
        var message = PresenterShowNotification(dialog)
        message.client = client
        return PreparedNotification(method: PresenterShowNotification.method, params: message.json)
    }

    /// Takes down a dialog the presenter connection shows (false when it does not show it).
    func hide(_ id: DialogID) -> Bool {
        let presenter = state.withValue { state -> ClientSession? in
            guard let route = state.routes.removeValue(forKey: id) else { return nil }
            state.ended.insert(id)
            return state.presenter?.id == route.presenter ? state.presenter : nil
        }
        guard let presenter else { return false }
        presenter.send(PresenterHideNotification(dialogId: id.rawValue))
        return true
    }

    /// The dialog ended (whoever ended it): forget its route.
    func ended(_ id: DialogID) {
        state.withValue { state in
            guard state.routes.removeValue(forKey: id) != nil else { return }
            state.ended.insert(id)
        }
    }

    /// The way for `session` to answer dialog `id`, when it is the presenter connection it was
    /// forwarded to; nil when the dialog was never forwarded to it (the caller then looks among
    /// the session's own dialogs).
    func responder(for id: DialogID, presenter session: ClientSession) throws(DialogError) -> (DialogResponder, SerialQueue)? {
        try state.withValue { state throws(DialogError) -> (DialogResponder, SerialQueue)? in
            if let route = state.routes[id] {
                return route.presenter == session.id ? (route.responder, route.queue) : nil
            }
            if state.presenter === session && state.ended.contains(id) { throw .alreadyEnded(id) }
            return nil
        }
    }
}
