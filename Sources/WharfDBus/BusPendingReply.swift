import WharfSystem

/// A method call to a served object (``BusConnection/serve(path:handler:)``) that is answered
/// later, from any thread: how a service answers a call only when a person is done with it
/// without holding up the bus thread meanwhile.
///
/// The call is answered exactly once: the first ``reply(_:)`` or ``fail(_:)`` counts, later ones
/// do nothing. One that is dropped unanswered is answered with `org.freedesktop.DBus.Error.Failed`,
/// so a caller never waits for an answer that cannot come.
public final class BusPendingReply: Sendable {
    private weak let core: BusCore?
    private let id: UInt64
    private let answered = Locked(false)

    init(core: BusCore, id: UInt64) {
        self.core = core
        self.id = id
    }

    deinit {
        if !answered.withValue({ $0 }) {
            let id = id
            core?.enqueue { $0.answer(deferred: id, with: .error(BusError(
                name: BusError.Names.failed, message: "the service dropped this call without answering it"))) }
        }
    }

    /// Sends the method return with `body`. Returns false when the call was already answered.
    @discardableResult
    public func reply(_ body: [BusValue]) -> Bool { send(.reply(body)) }

    /// Sends an error reply. Returns false when the call was already answered.
    @discardableResult
    public func fail(_ error: BusError) -> Bool { send(.error(error)) }

    /// Whether an answer was sent (or is on its way).
    public var isAnswered: Bool { answered.withValue { $0 } }

    private func send(_ answer: BusMethodAnswer) -> Bool {
        guard claim() else { return false }
        let id = id
        core?.enqueue { $0.answer(deferred: id, with: answer) }
        return true
    }

    /// Marks it answered without sending anything: the handler answered at once instead.
    func forget() { _ = claim() }

    private func claim() -> Bool {
        answered.withValue { answered in
            defer { answered = true }
            return !answered
        }
    }
}
