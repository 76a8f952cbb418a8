/// A value guarded by a mutex. Small and explicit; the guarded state is only reachable inside
/// `withValue`.
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
