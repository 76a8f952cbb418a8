import WharfSystem

/// Writes framed messages to one file descriptor, in the order they were handed over.
///
/// The read loop writes the answers to what it read itself, in one `writev` per chunk of input
/// (`cork`/`uncork`), so a request answered at once costs no thread hop. Every other thread
/// (dialog events, deferred replies) only appends and leaves the writing to a serial queue:
/// such threads may hold locks (the dialog engine's), and must never wait on a peer that is
/// slow to read. Each message's header and body go out in one `writev`; queued messages are
/// combined into as few calls as possible.
///
/// The output is on a budget: what is queued but not yet written, plus what the answers still
/// being worked on have reserved (`reserve`), may not pass `backlogLimit`. The read loop calls
/// `waitForRoom()` before reading more, and a request whose answer may be large reserves its
/// size before its work starts, waiting for room if need be; so a peer that stops reading stops
/// being read from, however it asks, instead of growing our memory. (One message larger than
/// the whole budget still goes out, alone.)
///
/// `@unchecked Sendable`: every `var` is read and written with `lock` held.
final class MessageWriter: @unchecked Sendable {
    /// Closed by ``close()`` (or by the drain in progress when it is called, once it is done):
    /// never while a write may still use its number.
    private let descriptor: FileDescriptor
    private let backlogLimit: Int
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [Frame] = []
    private var queuedBytes = 0
    /// Bytes promised to answers still being worked on (`reserve`).
    private var reservedBytes = 0
    private var draining = false
    /// While corked (the read loop, handling one chunk of input), writes only queue; `uncork`
    /// sends everything queued in one `writev`.
    private var corked = false
    /// Threads in a batch (`beginBatch`): their own writes wait for the end of their batch;
    /// anyone else's go out as usual (and take the batch's along).
    private var batchers: [ThreadIdentity] = []
    /// A drain is waiting for a pool thread.
    private var drainScheduled = false
    private var framing: Framing = .lsp
    private var failure: SystemError?
    /// Set when the session has ended: nothing more is written, whoever asks.
    private var closed = false
    private let onFailure: @Sendable (SystemError) -> Void
    /// The descriptor is non-blocking: a write takes what fits, and a full descriptor is
    /// handed to ``ReadinessWatcher`` instead of blocking a thread until the peer reads.
    private let nonBlocking: Bool
    /// Non-blocking and a socket: written so that no write waits whatever the flags of its
    /// description, which a bridge's editor shares (see `FileDescriptor.writeAvailable`).
    private let isSocket: Bool
    /// Non-blocking only: bytes of `queue[0]` already written.
    private var headOffset = 0
    /// Non-blocking only: the descriptor was full; the watcher drains again once it has room.
    private var awaitingRoom: ReadinessWatcher.Token?

    init(descriptor: FileDescriptor, backlogLimit: Int, nonBlocking: Bool = false, onFailure: @escaping @Sendable (SystemError) -> Void) {
        self.descriptor = descriptor
        self.backlogLimit = backlogLimit
        self.nonBlocking = nonBlocking
        self.isSocket = nonBlocking && descriptor.isSocket
        self.onFailure = onFailure
    }

    /// A drain is underway or waiting for the descriptor to have room: nobody else starts one.
    private var busy: Bool { draining || awaitingRoom != nil }

    /// Replies use the framing the peer uses; set once the reader has seen it.
    func setFraming(_ framing: Framing) {
        lock.withLock { self.framing = framing }
    }

    /// Queues one message body (already serialised JSON). It goes out when the read loop
    /// uncorks, or from a pool thread; never on the calling thread. `releasing` gives back a
    /// reservation made for this message; `charge` is held until the message has been written
    /// whole, or dropped with the rest of the queue (the session ended, the output failed).
    func write(_ body: [UInt8], releasing reservation: Int = 0, charge: BudgetCharge? = nil) {
        lock.lock()
        reservedBytes -= reservation
        if failure != nil || closed {
            lock.broadcast()
            lock.unlock()
            return
        }
        let frame: Frame
        switch framing {
        case .lsp: frame = Frame(prefix: FrameDecoder.header(forBodyLength: body.count), body: body, suffix: [], charge: charge)
        case .ndjson: frame = Frame(prefix: [], body: body, suffix: [0x0A], charge: charge)
        }
        queue.append(frame)
        queuedBytes += frame.count
        if busy || corked || drainScheduled || batchers.contains(where: { $0.isCurrent() }) {
            // The read loop may be waiting in `reserve` while corked: it must hear that there is
            // now something to write (or room given back), or neither of us ever writes it.
            lock.broadcast()
            lock.unlock()
            return
        }
        drainScheduled = true
        lock.unlock()
        WorkerPool.shared.run { [self] in
            lock.lock()
            drainScheduled = false
            if busy || queue.isEmpty {
                lock.unlock()
                return
            }
            drainAndUnlock()
        }
    }

    /// Promises room for an answer of about `bytes` that is still being worked on, waiting
    /// (on the read loop: the peer is then not read from) while the budget has no room for it.
    /// An answer larger than the whole budget waits until nothing else is pending, then goes
    /// alone. Give the reservation back with `write(_:releasing:)` or `release`.
    func reserve(_ bytes: Int) {
        lock.lock()
        while queuedBytes + reservedBytes + bytes > backlogLimit && queuedBytes + reservedBytes > 0
                && failure == nil && !closed {
            if corked && !busy && !queue.isEmpty {
                // What the read loop queued so far must go out, or nothing makes room.
                corked = false
                drainAndUnlock()
                lock.lock()
                corked = true
                continue
            }
            lock.wait()
        }
        reservedBytes += bytes
        lock.unlock()
    }

    /// Gives back a reservation whose answer will not be written (the request was cancelled,
    /// or answered by something else).
    func release(_ bytes: Int) {
        lock.withLock {
            reservedBytes -= bytes
            lock.broadcast()
        }
    }

    /// Counts `bytes` against the budget at once, without waiting for room: for the answers a
    /// batch collects, which can only go out together, so waiting for room their own batch
    /// holds would never end (``BatchCollector`` keeps a batch within the budget instead).
    /// Given back with `write(_:releasing:)` or `release`.
    func hold(_ bytes: Int) {
        lock.withLock { reservedBytes += bytes }
    }

    /// True while more than the budget is queued and promised: the read loop must not handle
    /// another message until the peer has read some.
    var isOverBudget: Bool { lock.withLock { queuedBytes + reservedBytes > backlogLimit } }

    /// Holds writes back while the read loop handles one chunk of input: the answers to
    /// pipelined requests then leave in one `writev` instead of one each.
    func cork() {
        lock.withLock { corked = true }
    }

    /// Sends whatever was queued while corked, on the calling thread (the read loop's).
    func uncork() {
        lock.lock()
        corked = false
        if busy || queue.isEmpty {
            lock.unlock()
            return
        }
        drainAndUnlock()
    }

    /// Holds the calling thread's own writes back until ``endBatch()``: a worker answering one
    /// request then writes its answer and the events it caused itself, instead of waking
    /// another thread to. Other threads' writes are not held.
    func beginBatch() {
        lock.withLock { batchers.append(.current) }
    }

    /// Sends what the batch queued (and anything else queued), on the calling thread.
    func endBatch() {
        lock.lock()
        if let index = batchers.firstIndex(where: { $0.isCurrent() }) { batchers.remove(at: index) }
        if corked || busy || queue.isEmpty {
            lock.unlock()
            return
        }
        drainAndUnlock()
    }

    /// Sends what is queued now, on the calling thread, corked or not.
    private func drainNow() {
        lock.lock()
        if busy || queue.isEmpty {
            lock.unlock()
            return
        }
        drainAndUnlock()
    }

    /// Becomes the drainer, writes everything queued, and releases the lock.
    private func drainAndUnlock() {
        draining = true
        drainLocked()
        draining = false
        if closed { descriptor.close() }
        lock.broadcast()
        lock.unlock()
    }

    /// Writes everything queued, dropping the lock around each system call.
    private func drainLocked() {
        if nonBlocking {
            drainWithoutBlockingLocked()
            return
        }
        while !queue.isEmpty && failure == nil && !closed {
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            lock.unlock()
            let error: SystemError?
            do {
                try descriptor.write(gathering: batch.map { UnsafeRawBufferPointer($0.bytes) })
                error = nil
            } catch let failure {
                error = failure
            }
            lock.lock()
            for frame in batch { queuedBytes -= frame.count }
            if let error {
                failure = error
                queue.removeAll()
                queuedBytes = 0
                lock.unlock()
                onFailure(error)
                lock.lock()
            }
        }
    }

    /// Writes what fits; when the descriptor is full, leaves the rest queued and asks the
    /// watcher to drain again once the peer has read (the frames stay in the queue until they
    /// are written whole, so later writers append behind them).
    private func drainWithoutBlockingLocked() {
        while !queue.isEmpty && failure == nil && !closed {
            let batch = queue.prefix(64)
            let offset = headOffset
            let total = batch.reduce(0) { $0 + $1.count } - offset
            lock.unlock()
            var written = 0
            var error: SystemError?
            do {
                written = try descriptor.writeAvailable(gathering: batch.map { UnsafeRawBufferPointer($0.bytes) }, offset: offset, isSocket: isSocket)
            } catch let failure {
                error = failure
            }
            lock.lock()
            consume(written)
            if let error {
                failure = error
                queue.removeAll()
                queuedBytes = 0
                headOffset = 0
                lock.unlock()
                onFailure(error)
                lock.lock()
                return
            }
            if written < total {
                awaitingRoom = ReadinessWatcher.shared.when(.writable, descriptor) { [weak self] in self?.roomAvailable() }
                return
            }
        }
    }

    /// Removes `count` written bytes from the front of the queue.
    private func consume(_ count: Int) {
        var remaining = count
        queuedBytes -= count
        var whole = 0
        while remaining > 0, whole < queue.count {
            let left = queue[whole].count - headOffset
            if remaining >= left {
                remaining -= left
                whole += 1
                headOffset = 0
            } else {
                headOffset += remaining
                remaining = 0
            }
        }
        queue.removeFirst(whole)
    }

    /// The watcher says the descriptor has room again.
    private func roomAvailable() {
        lock.lock()
        awaitingRoom = nil
        if draining || queue.isEmpty || closed {
            lock.broadcast()
            lock.unlock()
            return
        }
        drainAndUnlock()
    }

    /// After the session has ended: drops what is queued and every later write (a timer or a
    /// background job may still produce an event for a session that is gone), and closes the
    /// descriptor, which is how the peer learns the session is over.
    func close() {
        lock.withLock {
            closed = true
            queue.removeAll()
            queuedBytes = 0
            headOffset = 0
            if let token = awaitingRoom {
                ReadinessWatcher.shared.cancel(token)
                awaitingRoom = nil
            }
            if !draining { descriptor.close() }
            lock.broadcast()
        }
    }

    /// Blocks while the budget is spent (the peer is not reading what it asked for).
    func waitForRoom() {
        lock.withLock {
            while queuedBytes + reservedBytes > backlogLimit && failure == nil && !closed { lock.wait() }
        }
    }

    /// Bytes queued and promised right now (for tests of the budget).
    var outstandingBytes: Int { lock.withLock { queuedBytes + reservedBytes } }

    /// Waits until everything queued so far has been written, or `seconds` pass. Sends what is
    /// queued first, corked or not: the session may end in the middle of handling a chunk of
    /// input.
    @discardableResult
    func flush(seconds: Double) -> Bool {
        drainNow()
        return lock.withLock {
            let deadline = Deadline(secondsFromNow: seconds)
            while (draining || !queue.isEmpty) && failure == nil && !closed && !deadline.hasPassed {
                lock.wait(until: deadline)
            }
            return !draining && queue.isEmpty
        }
    }
}

/// One framed message in memory that does not move, so `writev` can point into it.
private final class Frame {
    let bytes: UnsafeMutableRawBufferPointer
    var count: Int { bytes.count }
    /// Counted against a budget for as long as the frame is in memory: it goes with the frame,
    /// once written whole or dropped.
    private let charge: BudgetCharge?

    init(prefix: [UInt8], body: [UInt8], suffix: [UInt8], charge: BudgetCharge?) {
        self.charge = charge
        bytes = .allocate(byteCount: prefix.count + body.count + suffix.count, alignment: 1)
        var offset = 0
        for part in [prefix, body, suffix] where !part.isEmpty {
            part.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]).copyMemory(from: $0) }
            offset += part.count
        }
    }

    deinit { bytes.deallocate() }
}
