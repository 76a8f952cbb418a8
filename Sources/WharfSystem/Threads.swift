import Glibc

/// Starts a detached POSIX thread running `body`.
///
/// Wharf uses a handful of long-lived threads (one reader per connection) rather than Swift
/// tasks, so that the read loop never waits behind the cooperative pool and never hops
/// executors per message.
public func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        let box = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! Box
        box.body()
        return nil
    }, box)
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
}

/// Which thread is running, to tell "the thread already doing this" from any other.
public struct ThreadIdentity: Sendable {
    private let thread: pthread_t

    /// The calling thread.
    public static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    public func isCurrent() -> Bool { pthread_equal(thread, pthread_self()) != 0 }
}
