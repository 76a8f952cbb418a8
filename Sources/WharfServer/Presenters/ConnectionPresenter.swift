import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// The presenter of a daemon client that does not draw its own dialogs: the presenter
/// connection when one is registered, else the daemon's own choice (`--presenter`: the
/// desktop's dialog, or a script). Decided for each dialog as it is shown, so a presenter
/// connection that registers later takes the dialogs opened after it.
///
/// What it queues for the presenter connection counts against the app's budget
/// (`--max-presenter-bytes-per-app`, shared by all the app's sessions). The presenter is another
/// process, which may read slowly or not at all, and a dialog's `presenter/show` can be
/// megabytes (the filters of a thousand declared types): without a budget, one app presenting
/// dialog after dialog had the daemon queue gigabytes for it. A dialog is admitted
/// (``admit(_:)``) before the app is told of it: its `presenter/show` is made then, so its size
/// is known, and counted; one that would take the app past its budget is refused with
/// `presenterBacklog`, and nothing is shown.
///
/// The bytes count until they have been written to the presenter connection, or thrown away
/// with its output (it went away, or its output failed); not until the dialog ends. What the
/// budget bounds is the daemon's memory, and a `presenter/show` the presenter has not read
/// stays queued after its dialog ends: a count given back at the end would let an app present
/// and cancel in a loop, queueing without end for a presenter that does not read.
final class ConnectionPresenter: DialogPresenter {
    let hub: PresenterHub
    /// What the daemon shows dialogs with when no presenter connection is registered.
    let fallback: (any DialogPresenter)?
    /// Whose dialogs these are, for `presenter/show`.
    let client: ClientIdentityInfo
    /// That client's dialog queue.
    let queue: SerialQueue
    /// What the client's app may have waiting for the presenter connection; nil for no limit.
    let budget: ByteBudget?
    /// Dialogs admitted and not yet shown (the engine shows each just after the app is told of
    /// it): the message made for it, and what it is charged.
    private let admitted = Locked<[DialogID: Admission]>([:])

    private struct Admission: Sendable {
        let message: PreparedNotification
        let charge: BudgetCharge?
    }

    init(hub: PresenterHub, fallback: (any DialogPresenter)?, client: ClientIdentityInfo, queue: SerialQueue, budget: ByteBudget?) {
        self.hub = hub
        self.fallback = fallback
        self.client = client
        self.queue = queue
        self.budget = budget
    }

    var name: String { hub.hasPresenter || fallback == nil ? "connection" : fallback!.name }

    /// Someone can show a dialog now.
    var isAvailable: Bool { hub.hasPresenter || fallback != nil }

    /// Makes `dialog`'s `presenter/show` and counts it against the app's budget, before the app
    /// is told of the dialog. Throws `presenterBacklog`, keeping nothing, when it does not fit.
    /// Nothing to do while no presenter connection is registered: the daemon's own presenter
    /// shows the dialog then.
    func admit(_ dialog: PresentedDialog) throws(ResponseError) {
        guard hub.hasPresenter else { return }
        let message = PresenterHub.showMessage(dialog, client: client)
        var charge: BudgetCharge?
        if let budget {
            charge = budget.charge(message.byteCount)
            guard charge != nil else {
                let waiting = budget.bytesHeld
                hub.logger.warning("refused a dialog of \(client.app ?? client.name): \(waiting) bytes of its dialogs wait for the "
                    + "presenter connection, and \(message.byteCount) more would pass \(budget.limit) (--max-presenter-bytes-per-app)")
                throw ResponseError(WharfErrorCode.presenterBacklog, """
                    the presenter connection has not yet read \(waiting) bytes of this app's dialogs, and this one's \
                    \(message.byteCount) bytes would take the app past \(budget.limit) (--max-presenter-bytes-per-app): \
                    nothing was shown; present it again once the presenter has caught up
                    """)
            }
        }
        admitted.withValue { $0[dialog.id] = Admission(message: message, charge: charge) }
    }

    /// The app was not told of an admitted dialog after all (its request was cancelled): what
    /// was made for it goes, and its count with it.
    func withdraw(_ id: DialogID) {
        admitted.withValue { _ = $0.removeValue(forKey: id) }
    }

    func show(_ dialog: PresentedDialog) {
        let admission = admitted.withValue { $0.removeValue(forKey: dialog.id) }
        if admission != nil || hub.hasPresenter {
            // Not admitted: the presenter connection registered between the dialog's admission
            // and its showing. It goes uncounted, as every dialog did before there was a budget.
            let message = admission?.message ?? PresenterHub.showMessage(dialog, client: client)
            if hub.show(dialog, message: message, charge: admission?.charge, queue: queue) { return }
        }
        if let fallback {
            fallback.show(dialog)
        } else {
            try? dialog.responder.fail("no presenter can show the dialog: the presenter connection went away")
        }
    }

    func hide(_ id: DialogID) {
        if hub.hide(id) { return }
        fallback?.hide(id)
    }
}
