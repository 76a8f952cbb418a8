import Glibc
import WharfSystem

/// One client's deliveries, in order, run outside the engine's lock.
///
/// The engine decides under its lock what happens to a dialog (the ending, the events, what the
/// presenter is told) and posts each delivery here, in that order; once the lock is released it
/// drains the outbox. Whoever drains first delivers everything queued, including what other
/// threads post meanwhile, so a client's deliveries never overtake each other and no delivery —
/// a write to the client, a presenter's `show`, a remembered folder — ever runs with the lock
/// held, where a slow one would stall every client.
///
/// `drain` returns once what was posted before it has been delivered (by this thread, or by the
/// thread already draining), so when an engine call returns, what it caused has happened. A
/// delivery that calls back into the engine for the same client is not waited for (its items
/// go out right after the delivery in progress).
///
/// `@unchecked Sendable`: every `var` is read and written with `lock` held.
final class Outbox: @unchecked Sendable {
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var pending: [@Sendable () -> Void] = []
    /// How many deliveries were posted, and how many have run.
    private var posted: UInt64 = 0
    private var delivered: UInt64 = 0
    /// The thread delivering now, if any.
    private var drainer: ThreadIdentity?

    /// Nothing queued and nothing being delivered. Callable under the engine's lock.
    var isIdle: Bool {
        lock.withLock { pending.isEmpty && drainer == nil && delivered == posted }
    }

    /// Queues a delivery. Cheap, never blocks on a delivery: callable under the engine's lock.
    func post(_ delivery: @escaping @Sendable () -> Void) {
        lock.withLock {
            pending.append(delivery)
            posted += 1
        }
    }

    /// Delivers everything queued, in order; or, when another thread is delivering, waits until
    /// it has delivered what was queued so far. Call without the engine's lock.
    func drain() {
        lock.lock()
        let target = posted
        if let drainer {
            if drainer.isCurrent() {
                lock.unlock()
                return
            }
            while delivered < target { lock.wait() }
            lock.unlock()
            return
        }
        guard !pending.isEmpty else {
            lock.unlock()
            return
        }
        drainer = .current
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            lock.unlock()
            for delivery in batch {
                delivery()
                lock.withLock {
                    delivered += 1
                    lock.broadcast()
                }
            }
            lock.lock()
        }
        drainer = nil
        lock.broadcast()
        lock.unlock()
    }

    /// Returns once everything posted before this call has been delivered (for the end of a
    /// session: what the client is owed is written before its output closes).
    func waitUntilDelivered() { drain() }
}
