import Glibc
import Synchronization

/// Threads of Wharf's own that run work off the caller's thread: writing, timers, and work
/// that may wait (disk, SQLite, child processes).
///
/// Dispatch would do, but linking it costs an idle server over a MiB of resident memory (it
/// drags in the concurrency runtime and the regex libraries), and Wharf needs only this: run a
/// closure soon, on some thread that is not the caller's. A thread is started when more work
/// waits than idle threads can take (up to `maximumThreads`), and ends after a few seconds
/// without work, so an idle server keeps none.
///
/// `@unchecked Sendable`: the queue and the counts are only touched with `lock` held (`given` is atomic).
public final class WorkerPool: @unchecked Sendable {
    /// The pool for work that never waits on anything outside the process: writing to
    /// non-blocking sockets, timers, handing events on. A few threads are plenty.
    public static let shared = WorkerPool(maximumThreads: 32)

    /// The pool for work that may block on the disk, the database or a child process: each
    /// client's requests and exports (its queues), the state database's batches, probing the
    /// desktop's tools.
    ///
    /// It has no cap. What it runs is bounded by its sources instead (each of a client's queues
    /// runs one piece of work at a time, the database takes one batch at a time), so it holds a
    /// few threads a client, as the read loops do; and a cap would let waiting work hold every
    /// thread, so that one app's sixty-four connections each reading a file on a disk that
    /// never answers would stop every other client's dialogs.
    ///
    /// Its threads spin a moment before sleeping (``SpinBeforeSleep``): a client's next request
    /// comes to its queue here within microseconds of its last answer.
    public static let blocking = WorkerPool(maximumThreads: .max, spin: SpinBeforeSleep())

    private let lock = ConditionLock()
    private let maximumThreads: Int
    private let idleSeconds: Double
    // Guarded by `lock`. A slot is emptied as its work is taken, so that what the work holds (a
    // document's bytes, a session) goes when it is done, not when the queue is next compacted.
    private var queue: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    /// Threads started and not yet looking for work: each will take a piece.
    private var starting = 0
    /// Idle threads spinning, not asleep: work they will take needs no signal.
    private var spinning = 0
    /// Where an idle thread spins; nil for a pool whose threads sleep at once.
    private let spin: SpinBeforeSleep?
    /// Pieces of work ever given, for a spinning thread to see new work without the lock.
    private let given = Atomic<Int>(0)

    /// - Parameters:
    ///   - maximumThreads: the most threads running work at once; more work waits its turn.
    ///   - idleSeconds: how long a thread waits for work before it ends.
    ///   - spin: where a thread out of work spins a moment before sleeping (one at a time);
    ///     nil, it sleeps at once.
    public init(maximumThreads: Int, idleSeconds: Double = 5, spin: SpinBeforeSleep? = nil) {
        self.maximumThreads = maximumThreads
        self.idleSeconds = idleSeconds
        self.spin = spin
    }

    /// Runs `work` on a pool thread, never on the caller's.
    public func run(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        queue.append(work)
        given.add(1, ordering: .releasing)
        // A new thread when the work waiting outnumbers the threads about to take some: an idle
        // thread signalled counts as idle until it wakes, so the next piece must not count on
        // it too (or a burst would queue behind the few pieces being run).
        let waiting = queue.count - head
        let start = waiting > idle + starting && threads < maximumThreads
        if start {
            threads += 1
            starting += 1
        }
        // A spinning thread takes the work without being woken.
        let wake = !start && waiting > spinning
        lock.unlock()
        // Signalled after unlocking: a thread woken while the caller still held the lock would
        // wake only to block on it, then be woken again when it was released (three futex
        // calls and a second wake-up for every hand-off, on another core often an interrupt
        // each). Nothing is lost: a thread not yet waiting checks the queue under the lock first.
        if start {
            do throws(SystemError) {
                try tryStartThread { [self] in serve() }
            } catch {
                threadNotStarted(error)
            }
        } else if wake {
            lock.signal()
        }
    }

    /// The system would not make the thread `run` counted on (its limit on tasks): the work
    /// waits for one of the pool's threads to be free instead, and only a pool with none left
    /// to take it stops the process, as a thread that cannot be made does elsewhere.
    private func threadNotStarted(_ error: SystemError) {
        let stranded = lock.withLock { () -> Bool in
            threads -= 1
            starting -= 1
            return threads == 0
        }
        precondition(!stranded, "cannot start a thread, and the pool has none to run its work: \(error)")
    }

    /// How many threads the pool has now (for tests and memory measurements).
    public var threadCount: Int { lock.withLock { threads } }

    /// How many of them wait for work (for tests).
    public var idleCount: Int { lock.withLock { idle } }

    private func serve() {
        lock.lock()
        starting -= 1
        while true {
            if head < queue.count {
                let work = queue[head]!
                queue[head] = nil
                head += 1
                if head > 64 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                lock.unlock()
                work()
                lock.lock()
                continue
            }
            idle += 1
            if let spin, spinFor(work: spin) {
                idle -= 1
                continue
            }
            let deadline = Deadline(secondsFromNow: idleSeconds)
            var timedOut = false
            while head >= queue.count && !timedOut { timedOut = !lock.wait(until: deadline) }
            idle -= 1
            if head >= queue.count {
                threads -= 1
                lock.unlock()
                return
            }
        }
    }

    /// Spins (the lock let go meanwhile) until work is given or the spin's time is up, and
    /// says whether there is work to take; the lock is held again either way. Work given
    /// meanwhile is found under the lock before any sleep, so none waits for a signal that was
    /// not sent.
    private func spinFor(work spin: SpinBeforeSleep) -> Bool {
        let seen = given.load(ordering: .acquiring)
        spinning += 1
        lock.unlock()
        _ = spin.spin { given.load(ordering: .acquiring) != seen }
        lock.lock()
        spinning -= 1
        return head < queue.count
    }
}

/// Runs closures one at a time, in the order they were given, on a ``WorkerPool``: the order
/// of a serial queue without a thread of its own. One per client keeps that client's work in
/// order while other clients' work goes on beside it.
///
/// `@unchecked Sendable`: `pending` and `running` are only touched with `lock` held.
public final class SerialQueue: @unchecked Sendable {
    private let pool: WorkerPool
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var pending: [@Sendable () -> Void] = []
    private var running = false

    public init(pool: WorkerPool = .shared) {
        self.pool = pool
    }

    /// Runs `work` after everything given before it.
    public func run(_ work: @escaping @Sendable () -> Void) {
        let start = lock.withLock { () -> Bool in
            pending.append(work)
            if running { return false }
            running = true
            return true
        }
        if start { pool.run { [self] in drain() } }
    }

    private func drain() {
        while true {
            let batch = lock.withLock { () -> [@Sendable () -> Void] in
                let batch = pending
                pending.removeAll(keepingCapacity: true)
                if batch.isEmpty { running = false }
                return batch
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}
