import Synchronization

/// A value guarded by the standard library's `Mutex`; the guarded state is only reachable inside
/// `withValue`. Where a thread must wait for another, `ConditionLock` is the lock instead.
///
/// Why a class around the `Mutex` rather than the `Mutex` itself: the guarded values are shared
/// by reference between the objects that use them, and ThreadSanitizer must see the lock. On
/// Linux, `Mutex` is a futex whose contended path (the wait and the hand-over in the kernel)
/// lives in the Synchronization library, which is not built for ThreadSanitizer; after a
/// contended hand-over the sanitizer sees no ordering between the two holders and reports the
/// accesses the lock guards as races. `handOver` gives it that ordering: each holder stores to it
/// with release ordering before unlocking, and the next holder loads it with acquire ordering
/// after locking. Nothing else reads it, and on x86-64 both are plain moves.
///
/// Contended, this toolchain's `Mutex` hands the lock to the first waiter in the kernel, which
/// must be scheduled before anyone else may take it: under heavy load a hot lock queues
/// (bench/notes/40 has what that costs the daemon with 200 busy clients).
public final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>
    private let handOver = Atomic<Int>(0)

    public init(_ value: sending Value) { mutex = Mutex(value) }

    @inline(__always)
    public func withValue<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending T in
            _ = handOver.load(ordering: .acquiring)
            defer { handOver.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}
