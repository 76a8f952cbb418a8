import Glibc

/// `pipe(2)` with both ends close-on-exec. Returns (read end, write end).
///
/// Swift's Glibc module leaves out `pipe2` (it needs `_GNU_SOURCE`), so the flag is set in a
/// second step, and a process spawned by another thread in between would inherit both ends.
/// An inherited write end keeps the pipe open after its owner closed it: the reader waits for
/// an end of file that only comes when that unrelated child exits (a test saw a 28 s stall).
/// So making a pipe and spawning a process exclude each other: spawn with `Spawn.start`.
public func makePipe() throws(SystemError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    let made = DescriptorInheritance.lock.withLock { () -> Bool in
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return true
    }
    guard made else { throw .current("pipe") }
    return (ends[0], ends[1])
}

/// Held while a pipe is half made and while a process is spawned (`Spawn.start`).
enum DescriptorInheritance {
    static let lock = ConditionLock()
}
