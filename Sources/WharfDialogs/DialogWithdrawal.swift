import Synchronization

/// Whether a dialog was withdrawn: its client could not be told of it
/// (``DialogEngine/withdraw(client:id:)``). Set by the delivery that tried, read by the
/// deliveries of an ending posted before anyone knew, so that no event names the dialog and no
/// presenter is asked to hide what it was never shown. A class, as the dialog's record and
/// those deliveries share it.
final class DialogWithdrawal: Sendable {
    private let withdrawn = Mutex(false)

    func withdraw() { withdrawn.withLock { $0 = true } }

    var isWithdrawn: Bool { withdrawn.withLock { $0 } }
}
