import Glibc

/// A mutex with a condition variable, for the few places where threads must wait on each other
/// (the writer's backlog bound, in-flight replies). Swift's `Mutex` has no condition variable.
///
/// `@unchecked Sendable`: the pthread objects are the synchronisation; they live in heap memory
/// owned by this object and never move.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// The mutex is glibc's adaptive kind: a thread that finds it held spins briefly (glibc
    /// bounds it, about a hundred tries) before sleeping in the kernel. Wharf's critical
    /// sections are a few dictionary or queue operations, so the holder is almost always done
    /// within the spin; sleeping instead costs a futex wait and a wake-up, and waking a thread
    /// on another core of a virtual machine that halts idle cores is slow (bench/notes/40).
    public init() {
        var mutexAttributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&mutexAttributes)
        pthread_mutexattr_settype(&mutexAttributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &mutexAttributes)
        pthread_mutexattr_destroy(&mutexAttributes)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the mutex held.
    @inline(__always)
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; the mutex must be held. Callers loop on their own predicate.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or until `deadline`; the mutex must be held. Returns false when the
    /// time ran out. A deadline, not a duration: callers wait in a loop and are woken by every
    /// signal, so a duration per wait would count wake-ups, not time.
    @discardableResult
    public func wait(until deadline: Deadline) -> Bool {
        var time = deadline.time
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
