import WharfSystem

/// The process has one controlling terminal, and a person can answer one dialog on it at a
/// time: every presenter that shows dialogs there (the terminal picker, the file managers)
/// waits for its turn, in whichever client and presenter the dialog is. Waited for on a
/// dialog's own thread, never on a read loop or under the engine's lock.
enum TerminalTurn {
    private static let turn = ConditionLock()
    nonisolated(unsafe) private static var busy = false

    /// Runs `body` once no other dialog is on the terminal; none starts there until it returns.
    static func run<T>(_ body: () -> T) -> T {
        turn.withLock {
            while busy { turn.wait() }
            busy = true
        }
        defer {
            turn.withLock {
                busy = false
                turn.broadcast()
            }
        }
        return body()
    }
}
