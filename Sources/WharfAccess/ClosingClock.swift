import Synchronization
import WharfSystem

/// When the store began closing (``AccessStore/close()``): from then on a write waits only
/// briefly for another process's lock. A class of its own, as the writing connection's busy
/// handler holds it: a weak reference to the store would already be gone when the store's
/// `deinit` closes it.
final class ClosingClock: Sendable {
    private let since = Mutex<UInt64?>(nil)

    /// Marks the start of closing; a second call keeps the first time.
    func start() { since.withLock { $0 = $0 ?? monotonicNanoseconds() } }

    /// Whether closing began more than `nanoseconds` ago.
    func hasLasted(nanoseconds: UInt64) -> Bool {
        guard let since = since.withLock({ $0 }) else { return false }
        return monotonicNanoseconds() - since > nanoseconds
    }
}
