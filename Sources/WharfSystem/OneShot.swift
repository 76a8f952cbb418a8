/// One value, set once by one thread and waited for by others: an answer that arrives on a
/// callback, for the blocking conveniences of tools and tests. The first ``set(_:)`` wins;
/// later ones are ignored.
///
/// `@unchecked Sendable`: `value` is only touched with `lock` held.
public final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value?

    public init() {}

    public func set(_ newValue: Value) {
        lock.withLock {
            if value == nil { value = newValue }
            lock.broadcast()
        }
    }

    /// Waits until the value is set.
    public func wait() -> Value {
        lock.withLock {
            while value == nil { lock.wait() }
            return value!
        }
    }

    /// Waits until the value is set or `deadline` comes; nil then.
    public func wait(until deadline: Deadline) -> Value? {
        lock.withLock {
            while value == nil && !deadline.hasPassed { lock.wait(until: deadline) }
            return value
        }
    }
}
