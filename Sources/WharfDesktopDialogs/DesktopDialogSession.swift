import WharfSystem

/// One dialog on screen, from `present` until its result: the caller's handle to cancel it.
///
/// The result is delivered exactly once, whoever gets there first: the human, the
/// presenter failing, or ``cancel(_:)``. A cancel takes the real dialog down first (the
/// portal's `Request.Close`, or the zenity/kdialog process group killed) and then delivers
/// `.cancelled(reason)`; one that comes after the result is ignored.
public final class DesktopDialogSession: Sendable {
    private struct State {
        var completion: (@Sendable (DesktopDialogResult) -> Void)?
        var result: DesktopDialogResult?
        var cancelRequested: DesktopDialogCancellation?
    }

    private let state: Locked<State>
    private let closer: Locked<(@Sendable (DesktopDialogCancellation) -> Void)?>
    private let ended = ConditionLock()

    init(completion: @escaping @Sendable (DesktopDialogResult) -> Void) {
        state = Locked(State(completion: completion))
        closer = Locked(nil)
    }

    /// Takes the real dialog down and ends it with `.cancelled(reason)` (unless it ended
    /// already). Returns at once; the result follows on the presenter's thread.
    public func cancel(_ reason: DesktopDialogCancellation = .caller) {
        let first = state.withValue { state -> Bool in
            guard state.result == nil, state.cancelRequested == nil else { return false }
            state.cancelRequested = reason
            return true
        }
        guard first else { return }
        closer.withValue { $0 }?(reason)
    }

    /// The result, once the dialog ended.
    public var result: DesktopDialogResult? { state.withValue { $0.result } }

    /// Waits for the result (tools and tests; never with a lock held that the presenter needs).
    public func waitForResult(seconds: Double) -> DesktopDialogResult? {
        let deadline = Deadline(secondsFromNow: seconds)
        return ended.withLock {
            while true {
                if let result = self.result { return result }
                if !ended.wait(until: deadline) && deadline.hasPassed { return self.result }
            }
        }
    }

    // MARK: For presenters

    /// The presenter's way to take the dialog down; called once, on `cancel`'s thread, so it
    /// must only hand the work to the presenter's own thread.
    func onCancel(_ close: @escaping @Sendable (DesktopDialogCancellation) -> Void) {
        closer.withValue { $0 = close }
        if let pending = state.withValue({ $0.result == nil ? $0.cancelRequested : nil }) { close(pending) }
    }

    /// The cancellation asked for, if any (a presenter checks it before showing anything).
    var cancelRequested: DesktopDialogCancellation? { state.withValue { $0.cancelRequested } }

    /// Ends the dialog with `result` unless it has ended already; a cancel that was asked for
    /// turns a presenter's "closed" into `.cancelled(reason)`. Returns whether this call ended it.
    @discardableResult
    func finish(_ result: DesktopDialogResult) -> Bool {
        let completion: (@Sendable (DesktopDialogResult) -> Void)?
        let final: DesktopDialogResult
        (completion, final) = state.withValue { state in
            guard state.result == nil else { return (nil, result) }
            // Once a cancel was asked for, the caller has moved on: whatever the presenter saw
            // (a late choice, the closed window, a failing Close) ends it as cancelled.
            let final = state.cancelRequested.map { DesktopDialogResult.cancelled($0) } ?? result
            state.result = final
            defer { state.completion = nil }
            return (state.completion, final)
        }
        guard let completion else { return false }
        // The presenter's closer holds the presenter's dialog, which holds this session:
        // once ended, nothing is left to close, and the cycle is broken.
        closer.withValue { $0 = nil }
        ended.withLock { ended.broadcast() }
        completion(final)
        return true
    }
}
