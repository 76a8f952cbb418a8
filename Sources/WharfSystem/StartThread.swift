import Glibc

/// Starts a detached POSIX thread running `body`.
///
/// Wharf uses a handful of long-lived threads (one reader per connection) rather than Swift
/// tasks, so that the read loop never waits behind the cooperative pool and never hops
/// executors per message. For the threads a process cannot go on without: when the system will
/// not make one, the process stops here. Where going on without it is possible (a connection
/// can be refused), use ``tryStartThread(_:)``.
public func startThread(_ body: @escaping @Sendable () -> Void) {
    do throws(SystemError) {
        try tryStartThread(body)
    } catch {
        preconditionFailure("cannot start a thread: \(error)")
    }
}

/// Starts a detached POSIX thread running `body`, or throws when the system will not make one
/// (`EAGAIN`: the limit on tasks, a cgroup's `pids.max` or `RLIMIT_NPROC`, or no memory for
/// its stack); `body` is then let go unrun.
public func tryStartThread(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body))
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        let box = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! Box
        box.body()
        return nil
    }, box.toOpaque())
    guard result == 0 else {
        box.release()
        throw SystemError(code: result, operation: "pthread_create")
    }
    pthread_detach(thread)
}
