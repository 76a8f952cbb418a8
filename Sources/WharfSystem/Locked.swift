/// A value guarded by a mutex. Small and explicit; the guarded state is only reachable inside
/// `withValue`.
///
/// Not the standard library's `Mutex`: on Linux that lock is a futex whose slow path lives in
/// the Synchronization library, which is not built for ThreadSanitizer, so `make test-tsan`
/// cannot see the lock taken and reports the accesses it guards as races whenever two threads
/// contend for it. A pthread mutex is one the sanitizer intercepts, so its reports stay true.
///
/// `@unchecked Sendable`: `value` is only reached inside `withValue`, with the lock held.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    @inline(__always)
    public func withValue<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try lock.withLock { () throws(E) -> T in try body(&value) }
    }
}
