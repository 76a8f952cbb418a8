import Glibc

/// Which thread is running, to tell "the thread already doing this" from any other.
public struct ThreadIdentity: Sendable {
    private let thread: pthread_t

    /// The calling thread.
    public static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    public func isCurrent() -> Bool { pthread_equal(thread, pthread_self()) != 0 }
}
