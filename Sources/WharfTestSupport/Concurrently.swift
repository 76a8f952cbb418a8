import WharfSystem

/// Runs `body(index)` on `count` threads of their own at once and waits for every one (threads,
/// not tasks: the bodies may block, and a task pool the size of the machine would run them a
/// few at a time).
public func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let remaining = Locked(count)
    let done = ConditionLock()
    for index in 0..<count {
        startThread {
            body(index)
            done.withLock {
                remaining.withValue { $0 -= 1 }
                done.broadcast()
            }
        }
    }
    done.withLock { while remaining.withValue({ $0 }) > 0 { done.wait() } }
}
