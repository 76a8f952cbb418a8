import WharfSystem

/// Runs `body(index)` on `count` threads of their own at once and waits for every one (threads,
/// not tasks: the bodies may block, and a task pool the size of the machine would run them a
/// few at a time).
public func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let remaining = WaitableValue(count)
    for index in 0..<count {
        startThread {
            body(index)
            remaining.change { $0 -= 1 }
        }
    }
    _ = remaining.wait { $0 == 0 ? true : nil }
}
