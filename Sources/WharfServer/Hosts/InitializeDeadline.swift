import WharfJSONRPC
import WharfSystem

/// `--initialize-timeout` for one daemon connection: once it passes, a connection still
/// waiting for its first byte is woken to close, and a session not yet answered `initialize`
/// is ended. Without it, connections that never speak hold their places of `--max-clients`
/// (and their app's of `--max-clients-per-app`) for as long as they stay open.
final class InitializeDeadline: Sendable {
    private struct Watched {
        var expired = false
        var interrupter: Interrupter?
        var session: ClientSession?
    }

    private let seconds: Int
    private let logger: Logger
    private let app: String
    private let watched = Locked(Watched())
    private let cancelTimer = Locked<(@Sendable () -> Void)?>(nil)

    /// Starts counting now; `seconds` 0 never expires.
    init(seconds: Int, logger: Logger, app: String) {
        self.seconds = seconds
        self.logger = logger
        self.app = app
        guard seconds > 0 else { return }
        let cancel = TimerQueue.shared.after(milliseconds: seconds * 1000) { [self] in expire() }
        cancelTimer.withValue { $0 = cancel }
    }

    /// The connection is over: the timer is dropped.
    func cancel() {
        let cancel = cancelTimer.withValue { cancel in defer { cancel = nil }; return cancel }
        cancel?()
    }

    /// The wait for the connection's first byte: signalled once the deadline has passed.
    func watch(_ interrupter: Interrupter) {
        let expired = watched.withValue { state -> Bool in
            state.interrupter = interrupter
            return state.expired
        }
        if expired { interrupter.signal() }
    }

    /// The connection's session: ended if the deadline passes before it is initialized.
    func watch(_ session: ClientSession) {
        let expired = watched.withValue { state -> Bool in
            state.session = session
            state.interrupter = nil
            return state.expired
        }
        if expired { endIfUninitialized(session) }
    }

    private func expire() {
        let (interrupter, session) = watched.withValue { state in
            state.expired = true
            return (state.interrupter, state.session)
        }
        if session == nil, let interrupter, !interrupter.isSignalled {
            logger.warning("closed a connection of \(app): it sent nothing for \(seconds) s (--initialize-timeout)")
        }
        interrupter?.signal()
        if let session { endIfUninitialized(session) }
    }

    /// Ends the session on a worker of the pool for work that waits (ending waits for what is
    /// owed to be written, up to seconds, for a peer that may not read), never on the timer's
    /// thread nor on the shared pool's, which every client's timers need.
    private func endIfUninitialized(_ session: ClientSession) {
        guard session.state.withValue({ $0.lifecycle == .uninitialized }) else { return }
        logger.warning("closed a connection of \(app): no initialize within \(seconds) s (--initialize-timeout)")
        WorkerPool.blocking.run {
            session.end(exitCode: session.exitCodeForEndOfInput, reason: "no initialize within \(self.seconds) s")
        }
    }
}
