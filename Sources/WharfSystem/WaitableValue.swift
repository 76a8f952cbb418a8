/// A value guarded by a mutex, whose changes another thread may wait for: one lock and its
/// condition together, where a `ConditionLock` wrapped around a `Locked` would take two locks,
/// nested, at every use.
///
/// `withValue` reads or changes the value and wakes no one; `change` changes it and wakes every
/// waiter, for the changes a waiter may be waiting for; `wait` sleeps until its predicate holds
/// of the value (or a deadline passes), the lock released meanwhile.
///
/// `@unchecked Sendable`: `value` is only reached with `lock` held.
public final class WaitableValue<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held; wakes nobody.
    @inline(__always)
    public func withValue<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try lock.withLock { () throws(E) -> T in try body(&value) }
    }

    /// Runs `body` with the value, the lock held, and then wakes every thread waiting on it.
    public func change<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock {
            defer { lock.broadcast() }
            return body(&value)
        }
    }

    /// Waits until `result` answers something for the value, and answers it; checked first at
    /// once, then at each `change`.
    public func wait<T>(for result: (inout Value) -> T?) -> T {
        lock.withLock {
            while true {
                if let answer = result(&value) { return answer }
                lock.wait()
            }
        }
    }

    /// Waits until `result` answers something for the value or `deadline` passes; nil then.
    public func wait<T>(until deadline: Deadline, for result: (inout Value) -> T?) -> T? {
        lock.withLock {
            while true {
                if let answer = result(&value) { return answer }
                if deadline.hasPassed { return nil }
                lock.wait(until: deadline)
            }
        }
    }
}
