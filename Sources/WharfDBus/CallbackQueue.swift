import WharfSystem

/// A serial queue on a thread of its own, where a connection delivers replies and signals.
///
/// The bus thread never runs the caller's code: a slow handler (one that writes a large file
/// when a dialog answers, say) cannot hold up D-Bus traffic for other dialogs, and a handler
/// may call back into ``BusConnection`` freely. Work runs in the order it was queued.
///
/// `@unchecked Sendable`: `state` is only touched with `lock` held.
final class CallbackQueue: @unchecked Sendable {
    private struct State {
        var work: [@Sendable () -> Void] = []
        var stopping = false
        /// The thread has ended: late work gets a thread of its own rather than being lost.
        var ended = false
    }

    private let lock = ConditionLock()
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    init() {
        state.initialize(to: State())
        startThread { [self] in run() }
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func async(_ work: @escaping @Sendable () -> Void) {
        let ended = lock.withLock { () -> Bool in
            if state.pointee.ended { return true }
            state.pointee.work.append(work)
            lock.signal()
            return false
        }
        if ended { startThread(work) }
    }

    /// Ends the thread once everything queued so far has run.
    func stop() {
        lock.withLock {
            state.pointee.stopping = true
            lock.signal()
        }
    }

    private func run() {
        while true {
            lock.lock()
            while state.pointee.work.isEmpty && !state.pointee.stopping { lock.wait() }
            let batch = state.pointee.work
            state.pointee.work.removeAll()
            let stop = state.pointee.stopping && batch.isEmpty
            if stop { state.pointee.ended = true }
            lock.unlock()
            if stop { return }
            for work in batch { work() }
        }
    }
}
