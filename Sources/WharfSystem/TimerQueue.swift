import Glibc

/// Runs work at a moment on the monotonic clock: dialog timeouts, scripted delays, the parent
/// watch. One thread sleeps until the earliest deadline and hands what is due to a
/// ``WorkerPool``, so timed work never runs on the timer thread itself and a slow piece of work
/// cannot delay the next deadline. The thread starts with the first timer.
///
/// `@unchecked Sendable`: the heap and the thread's state are only touched with `lock` held.
public final class TimerQueue: @unchecked Sendable {
    /// The queue the server uses.
    public static let shared = TimerQueue(pool: .shared)

    private struct Timer {
        var deadline: UInt64
        var sequence: UInt64
        var slot: Slot
    }

    /// A timer's work until it runs or is cancelled; then nil.
    ///
    /// `@unchecked Sendable`: `work` is only touched with the queue's `lock` held.
    private final class Slot: @unchecked Sendable {
        var work: (@Sendable () -> Void)?
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    private let pool: WorkerPool
    private let lock = ConditionLock()
    // Guarded by `lock`: a binary min-heap by (deadline, sequence).
    private var heap: [Timer] = []
    /// Timers in `heap` cancelled and not yet dropped from it.
    private var cancelled = 0
    private var sequence: UInt64 = 0
    private var started = false

    public init(pool: WorkerPool) {
        self.pool = pool
    }

    /// Nanoseconds on the monotonic clock.
    public static var now: UInt64 { monotonicNanoseconds() }

    /// Runs `work` on the pool `milliseconds` from now (at once, on the pool, for 0). Answers
    /// what cancels it: a timer that will not be needed (a dialog's timeout, once the dialog has
    /// ended) should be cancelled, or it and what its work holds stay until it is due (a day,
    /// for a long timeout; a client opening and cancelling such dialogs grew memory without end).
    @discardableResult
    public func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard milliseconds > 0 else {
            pool.run(work)
            return {}
        }
        let deadline = Self.now + UInt64(milliseconds) * 1_000_000
        let slot = Slot(work)
        let (start, wake) = lock.withLock { () -> (Bool, Bool) in
            sequence += 1
            push(Timer(deadline: deadline, sequence: sequence, slot: slot))
            // The timer thread sleeps until the earliest deadline: only a new earliest one is
            // news to it (the write-behind asks for a flush with every grant).
            let wake = heap.first?.sequence == sequence
            if started { return (false, wake) }
            started = true
            return (true, false)
        }
        if start { startThread { [self] in tick() } }
        // After unlocking, so that the thread does not wake only to wait for the lock.
        if wake { lock.signal() }
        // Strongly: a weak reference to the queue would give it a side table, which LeakSanitizer
        // takes for a leak (its pointer is kept in the reference count's bits); nothing holds
        // the cancel from the queue's side, so this makes no cycle.
        return { [self] in cancel(slot) }
    }

    /// How many timers wait, cancelled ones not yet dropped included (for tests).
    public var pendingCount: Int { lock.withLock { heap.count } }

    /// Drops the work at once; the timer itself goes when it comes up, or sooner, with the other
    /// cancelled ones, once they are half the heap (a sorted array is a heap).
    private func cancel(_ slot: Slot) {
        lock.withLock {
            guard slot.work != nil else { return }
            slot.work = nil
            cancelled += 1
            if cancelled > 64 && cancelled * 2 > heap.count {
                heap.removeAll { $0.slot.work == nil }
                heap.sort(by: Self.precedes)
                cancelled = 0
            }
        }
    }

    private func tick() {
        lock.lock()
        while true {
            guard let first = heap.first else {
                lock.wait()
                continue
            }
            let now = Self.now
            if first.deadline > now {
                lock.wait(until: Deadline(secondsFromNow: Double(first.deadline - now) / 1_000_000_000))
                continue
            }
            let due = pop()
            guard let work = due.slot.work else {
                cancelled -= 1
                continue
            }
            due.slot.work = nil
            lock.unlock()
            pool.run(work)
            lock.lock()
        }
    }

    private static func precedes(_ a: Timer, _ b: Timer) -> Bool {
        (a.deadline, a.sequence) < (b.deadline, b.sequence)
    }

    private func push(_ timer: Timer) {
        heap.append(timer)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Timer {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
