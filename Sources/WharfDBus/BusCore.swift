import CSystemBus
import WharfSystem

/// The thread that owns one sd-bus connection, and everything only that thread may touch.
///
/// sd-bus is not thread-safe: the `sd_bus` object, its messages and slots are used here and
/// nowhere else. Other threads hand work in through ``enqueue(_:)`` (a queue and a wake-up
/// pipe) and never wait for it; what comes back goes out through the ``CallbackQueue``.
/// The loop is sd-bus's documented external-loop pattern: a ``Poller`` wait on the bus
/// descriptor with the events and deadline sd-bus asks for, plus the ``WakeupPipe``, then
/// `sd_bus_process` until it has nothing left to do.
///
/// `@unchecked Sendable`: the fields under "bus thread only" are touched only by the loop
/// thread; `inbox` is guarded by its lock.
final class BusCore: @unchecked Sendable {
    typealias Job = @Sendable (BusCore) -> Void

    private struct Inbox {
        var jobs: [Job] = []
        var closing = false
        var closed = false
    }

    let delivery = CallbackQueue()
    /// A `WaitableValue`: ``waitUntilClosed(until:)`` waits for `closed`.
    private let inbox = WaitableValue(Inbox())
    private let wakeup: WakeupPipe

    // MARK: Bus thread only
    private(set) var bus: OpaquePointer?
    private var nextID: UInt64 = 0
    /// Pending method calls: the slot (unref'd to forget the call) and who to tell.
    private var calls: [UInt64: (slot: OpaquePointer?, box: SlotBox)] = [:]
    /// Signal subscriptions and exported objects.
    private var slots: [UInt64: (slot: OpaquePointer?, box: SlotBox)] = [:]
    /// Method calls to exported objects that will be answered later (``BusPendingReply``):
    /// each message is held (ref'd) until its answer is sent or the connection ends.
    private var deferred: [UInt64: OpaquePointer] = [:]
    /// Calls whose reply came; their slots are released once `sd_bus_process` has returned.
    private var finished: [UInt64] = []
    private var ready = false
    private var openDeadline: Deadline?
    private var onReady: ((Result<String, BusError>) -> Void)?
    var onDisconnect: (@Sendable (BusError) -> Void)?

    init() throws(BusError) {
        do {
            wakeup = try WakeupPipe()
        } catch {
            throw BusError(name: BusError.Names.failed, message: "cannot make the bus thread's wake-up pipe: \(error)")
        }
    }

    // MARK: Any thread

    /// Runs `job` on the bus thread, after every job enqueued before it. Returns false when
    /// the connection is closed (the job will never run).
    @discardableResult
    func enqueue(_ job: @escaping Job) -> Bool {
        let accepted = inbox.withValue { inbox -> Bool in
            guard !inbox.closing else { return false }
            inbox.jobs.append(job)
            return true
        }
        if accepted { wakeup.wake() }
        return accepted
    }

    /// Asks the loop to close the connection and end; pending calls fail with `reason`.
    func requestClose() {
        let first = inbox.withValue { inbox -> Bool in
            defer { inbox.closing = true }
            return !inbox.closing
        }
        if first { wakeup.wake() }
    }

    var isClosed: Bool { inbox.withValue { $0.closing } }

    /// Waits until the loop has ended: what was enqueued before the close was run, what it
    /// sent was flushed and the bus closed. False when `deadline` passed first. Never call it
    /// on the bus thread or the delivery queue, which it waits for.
    func waitUntilClosed(until deadline: Deadline) -> Bool {
        inbox.wait(until: deadline) { $0.closed ? true : nil } ?? false
    }

    // MARK: Starting

    /// Connects on a new thread; `ready` gets the unique name once the bus said Hello, or the
    /// reason it did not within `timeoutMs`. `ready` runs on the bus thread.
    func start(address: String, description: String, timeoutMs: Int, ready: @escaping (Result<String, BusError>) -> Void) {
        onReady = ready
        openDeadline = Deadline(secondsFromNow: Double(timeoutMs) / 1000)
        startThread { [self] in
            if let failure = connect(address: address, description: description) {
                finishOpening(.failure(failure))
                teardown(BusError(name: BusError.Names.disconnected, message: failure.message))
                return
            }
            loop()
        }
    }

    private func connect(address: String, description: String) -> BusError? {
        // The first connection of the process loads libsystemd (see CSystemBus), here, on this thread.
        if let failure = wharf_sd_bus_load_error() {
            return BusError(name: BusError.Names.failed, message: "cannot speak D-Bus: \(String(cString: failure))")
        }
        var created: OpaquePointer?
        var r = wharf_sd_bus_new(&created)
        guard r >= 0, let created else { return .local("sd_bus_new", r) }
        bus = created
        r = address.withCString { wharf_sd_bus_set_address(created, $0) }
        if r < 0 { return BusError(name: BusError.Names.failed, message: "the session bus address \(address) is not one sd-bus can use: \(SystemError.reason(for: -r))") }
        _ = description.withCString { wharf_sd_bus_set_description(created, $0) }
        _ = wharf_sd_bus_set_bus_client(created, 1)
        r = wharf_sd_bus_start(created)
        if r < 0 {
            return BusError(name: BusError.Names.failed,
                            message: "cannot connect to the D-Bus session bus at \(address): \(SystemError.reason(for: -r))")
        }
        return nil
    }

    private func finishOpening(_ result: Result<String, BusError>) {
        guard let onReady else { return }
        self.onReady = nil
        openDeadline = nil
        onReady(result)
    }

    // MARK: The loop

    private func loop() {
        var failure: BusError?
        while failure == nil {
            if runJobs() {
                failure = BusError(name: BusError.Names.disconnected, message: "the D-Bus connection was closed")
                break
            }
            while true {
                let r = wharf_sd_bus_process(bus, nil)
                if r < 0 {
                    failure = BusError(name: BusError.Names.disconnected,
                                       message: "the D-Bus session bus connection was lost: \(SystemError.reason(for: -r))")
                    break
                }
                if r == 0 { break }
                // What the message's handler enqueued (an object it exported, a subscription)
                // is in place before the next message is dispatched: a peer answered by the
                // handler may call that object at once.
                if runJobs() {
                    failure = BusError(name: BusError.Names.disconnected, message: "the D-Bus connection was closed")
                    break
                }
            }
            releaseFinished()
            if failure != nil { break }
            if wharf_sd_bus_is_open(bus) <= 0 {
                failure = BusError(name: BusError.Names.disconnected, message: "the D-Bus session bus closed the connection")
                break
            }
            if !ready && wharf_sd_bus_is_ready(bus) > 0 {
                ready = true
                var unique: UnsafePointer<CChar>?
                _ = wharf_sd_bus_get_unique_name(bus, &unique)
                finishOpening(.success(unique.map { String(cString: $0) } ?? ""))
                continue
            }
            if let openDeadline, openDeadline.hasPassed {
                failure = BusError(name: BusError.Names.timeout, message: "the D-Bus session bus did not complete the connection in time")
                finishOpening(.failure(failure!))
                break
            }
            waitForWork()
        }
        teardown(failure!)
    }

    /// Runs the jobs enqueued so far; answers whether the connection is closing. A function of
    /// its own so that the jobs, and what they captured (a call's body, its request), are
    /// released before the thread sleeps rather than kept until its next turn.
    private func runJobs() -> Bool {
        let (jobs, closing) = inbox.withValue { inbox -> ([Job], Bool) in
            defer { inbox.jobs.removeAll() }
            return (inbox.jobs, inbox.closing)
        }
        for job in jobs { job(self) }
        return closing
    }

    /// Sleeps until the bus or the wake-up pipe has something, or sd-bus's (or the opening)
    /// deadline comes.
    private func waitForWork() {
        let busWatch = Poller.Watch(borrowing: wharf_sd_bus_get_fd(bus),
                                    for: Poller.Events(rawValue: Int16(truncatingIfNeeded: wharf_sd_bus_get_events(bus))))
        var timeoutMs: Int?
        var until: UInt64 = 0
        // sd-bus's deadline is in microseconds of CLOCK_MONOTONIC.
        if wharf_sd_bus_get_timeout(bus, &until) >= 0 && until != UInt64.max {
            let nowMicros = monotonicNanoseconds() / 1000
            timeoutMs = until <= nowMicros ? 0 : Int(min((until - nowMicros + 999) / 1000, 60_000))
        }
        if openDeadline != nil { timeoutMs = min(timeoutMs ?? 20, 20) }
        // A failed poll (it cannot fail on two valid descriptors) only means another turn.
        let ready = (try? Poller.wait([busWatch, wakeup.watch], timeoutMilliseconds: timeoutMs)) ?? []
        if ready.count == 2 && !ready[1].isEmpty { wakeup.drain() }
    }

    /// Fails every pending call, forgets every slot, closes the bus and stops delivery.
    private func teardown(_ reason: BusError) {
        inbox.withValue { $0.closing = true; $0.jobs.removeAll() }
        finishOpening(.failure(reason))
        for (_, call) in calls {
            wharf_sd_bus_slot_unref(call.slot)
            let box = call.box
            delivery.async { box.failed(reason) }
        }
        calls.removeAll()
        for (_, entry) in slots { wharf_sd_bus_slot_unref(entry.slot) }
        slots.removeAll()
        for (_, message) in deferred { wharf_sd_bus_message_unref(message) }
        deferred.removeAll()
        if let bus { wharf_sd_bus_flush_close_unref(bus) }
        bus = nil
        if let onDisconnect { delivery.async { onDisconnect(reason) } }
        delivery.stop()
        inbox.change { $0.closed = true }
    }

    private func releaseFinished() {
        for id in finished {
            if let call = calls.removeValue(forKey: id) { wharf_sd_bus_slot_unref(call.slot) }
        }
        finished.removeAll()
    }

    // MARK: Bus thread: operations

    /// Call ids (subscriptions and exported objects are numbered by ``BusSubscription``, in
    /// their own table).
    func newID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Sends a method call; `reply` runs on the delivery queue exactly once.
    func call(_ request: MethodCall, reply: @escaping @Sendable (Result<BusMessage, BusError>) -> Void) {
        guard let bus else { return delivery.async { reply(.failure(.closed)) } }
        var message: OpaquePointer?
        var r = request.destination.withOptionalCString { destination in
            wharf_sd_bus_message_new_method_call(bus, &message, destination, request.path, request.interface, request.member)
        }
        guard r >= 0, let message else {
            let error = BusError.local("sd_bus_message_new_method_call(\(request.member))", r)
            return delivery.async { reply(.failure(error)) }
        }
        defer { wharf_sd_bus_message_unref(message) }
        do {
            try MessageWriter.append(request.body, to: message)
        } catch {
            return delivery.async { reply(.failure(error)) }
        }
        let id = newID()
        let box = SlotBox(core: self, id: id, kind: .reply(reply))
        var slot: OpaquePointer?
        r = wharf_sd_bus_call_async(bus, &slot, message, slotHandler, Unmanaged.passUnretained(box).toOpaque(),
                              UInt64(max(request.timeoutMs, 1)) * 1000)
        if r < 0 {
            let error = BusError.local("sd_bus_call_async(\(request.member))", r)
            return delivery.async { reply(.failure(error)) }
        }
        calls[id] = (slot, box)
    }

    /// Registers `rule` locally and sends AddMatch. Anything sent after this (in a later job)
    /// reaches the bus after the AddMatch, and the bus applies messages from one connection in
    /// order, so a signal caused by a later call cannot be missed.
    func subscribe(id: UInt64, _ rule: BusMatchRule, handler: @escaping @Sendable (BusMessage) -> Void,
                   installed: (@Sendable (BusError?) -> Void)?) {
        guard let bus else { return }
        let box = SlotBox(core: self, id: id, kind: .signal(handler, installed: installed))
        var slot: OpaquePointer?
        let opaque = Unmanaged.passUnretained(box).toOpaque()
        let r = rule.description.withCString {
            wharf_sd_bus_add_match_async(bus, &slot, $0, slotHandler, installed == nil ? nil : installHandler, opaque)
        }
        if r < 0 {
            let error = BusError.local("sd_bus_add_match_async", r)
            if let installed { delivery.async { installed(error) } }
            return
        }
        slots[id] = (slot, box)
    }

    /// Serves method calls to `path` with `handler`, which runs on the bus thread.
    func export(id: UInt64, path: String, handler: @escaping @Sendable (BusMessage) -> BusMethodAnswer) -> BusError? {
        guard let bus else { return .closed }
        let box = SlotBox(core: self, id: id, kind: .object(handler))
        var slot: OpaquePointer?
        let r = path.withCString { wharf_sd_bus_add_object(bus, &slot, $0, slotHandler, Unmanaged.passUnretained(box).toOpaque()) }
        if r < 0 { return .local("sd_bus_add_object(\(path))", r) }
        slots[id] = (slot, box)
        return nil
    }

    /// Serves method calls to `path` with `handler`, which runs on the bus thread and may
    /// answer later through the ``BusPendingReply`` it is given.
    func serve(id: UInt64, path: String,
               handler: @escaping @Sendable (BusMessage, BusPendingReply) -> BusMethodAnswer) -> BusError? {
        guard let bus else { return .closed }
        let box = SlotBox(core: self, id: id, kind: .service(handler))
        var slot: OpaquePointer?
        let r = path.withCString { wharf_sd_bus_add_object(bus, &slot, $0, slotHandler, Unmanaged.passUnretained(box).toOpaque()) }
        if r < 0 { return .local("sd_bus_add_object(\(path))", r) }
        slots[id] = (slot, box)
        return nil
    }

    /// Answers a deferred method call (once; a second answer finds nothing to answer).
    func answer(deferred id: UInt64, with answer: BusMethodAnswer) {
        guard let message = deferred.removeValue(forKey: id) else { return }
        defer { wharf_sd_bus_message_unref(message) }
        _ = handle(SlotBox(core: self, id: id, kind: .object({ _ in answer })), message)
    }

    /// Sends a signal.
    func emit(_ signal: BusSignal) -> BusError? {
        guard let bus else { return .closed }
        var message: OpaquePointer?
        let r = wharf_sd_bus_message_new_signal(bus, &message, signal.path, signal.interface, signal.member)
        guard r >= 0, let message else { return .local("sd_bus_message_new_signal", r) }
        defer { wharf_sd_bus_message_unref(message) }
        do {
            try MessageWriter.append(signal.body, to: message)
        } catch {
            return error
        }
        let sent = wharf_sd_bus_send(bus, message, nil)
        return sent < 0 ? .local("sd_bus_send", sent) : nil
    }

    /// Forgets a subscription or an exported object (no callback runs for it afterwards).
    func remove(id: UInt64) {
        if let entry = slots.removeValue(forKey: id) { wharf_sd_bus_slot_unref(entry.slot) }
    }

    // MARK: Bus thread: callbacks from sd-bus

    fileprivate func handle(_ box: SlotBox, _ message: OpaquePointer) -> Int32 {
        switch box.kind {
        case .reply(let reply):
            let copied = BusMessage(copying: message)
            finished.append(box.id)
            delivery.async {
                if let error = copied.error { reply(.failure(error)) } else { reply(.success(copied)) }
            }
            return 1
        case .signal(let handler, _):
            let copied = BusMessage(copying: message)
            delivery.async { handler(copied) }
            return 0
        case .service(let handler):
            let copied = BusMessage(copying: message)
            let id = newID()
            let pending = BusPendingReply(core: self, id: id)
            deferred[id] = wharf_sd_bus_message_ref(message)
            switch handler(copied, pending) {
            case .notHandled:
                pending.forget()
                deferred.removeValue(forKey: id).map { _ = wharf_sd_bus_message_unref($0) }
                return 0
            case .noReply:
                // The handler keeps `pending` and answers through it, from any thread.
                return 1
            case let answer:
                pending.forget()
                deferred.removeValue(forKey: id).map { _ = wharf_sd_bus_message_unref($0) }
                return handle(SlotBox(core: self, id: box.id, kind: .object({ _ in answer })), message)
            }
        case .object(let handler):
            let copied = BusMessage(copying: message)
            switch handler(copied) {
            case .notHandled:
                return 0
            case .noReply:
                return 1
            case .error(let error):
                _ = wharf_bus_reply_error(message, error.name, error.message)
                return 1
            case .signalsThenReply(let signals, let body):
                for signal in signals { _ = emit(signal) }
                return handle(SlotBox(core: self, id: box.id, kind: .object({ _ in .reply(body) })), message)
            case .reply(let body):
                var reply: OpaquePointer?
                guard wharf_sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return 1 }
                defer { wharf_sd_bus_message_unref(reply) }
                do {
                    try MessageWriter.append(body, to: reply)
                    _ = wharf_sd_bus_send(bus, reply, nil)
                } catch {
                    _ = wharf_bus_reply_error(message, error.name, error.message)
                }
                return 1
            }
        }
    }

    fileprivate func installed(_ box: SlotBox, _ message: OpaquePointer) {
        guard case .signal(_, let installed?) = box.kind else { return }
        let error = BusMessage(copying: message).error
        delivery.async { installed(error) }
    }
}

/// What an exported object's handler answers to a method call.
public enum BusMethodAnswer: Sendable {
    /// A method return with this body.
    case reply([BusValue])
    /// These signals first, then the method return: how a test service plays a peer whose
    /// signal overtakes its own reply.
    case signalsThenReply([BusSignal], [BusValue])
    /// An error reply.
    case error(BusError)
    /// No reply now: a service's handler answers later through its ``BusPendingReply``; an
    /// ``BusConnection/export(path:handler:)`` handler never (a hanging service, for tests).
    case noReply
    /// Not this object's method: sd-bus answers UnknownMethod.
    case notHandled
}

/// A signal to emit.
public struct BusSignal: Sendable, Equatable {
    public var path: String
    public var interface: String
    public var member: String
    public var body: [BusValue]

    public init(path: String, interface: String, member: String, body: [BusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.body = body
    }
}

/// A method call to send.
struct MethodCall: Sendable {
    var destination: String?
    var path: String
    var interface: String
    var member: String
    var body: [BusValue]
    var timeoutMs: Int
}

/// What sd-bus's C callbacks find through their `userdata`: which slot fired and what to do.
/// Kept alive by the core's tables for as long as its slot exists.
final class SlotBox: Sendable {
    enum Kind {
        case reply(@Sendable (Result<BusMessage, BusError>) -> Void)
        case signal(@Sendable (BusMessage) -> Void, installed: (@Sendable (BusError?) -> Void)?)
        case object(@Sendable (BusMessage) -> BusMethodAnswer)
        case service(@Sendable (BusMessage, BusPendingReply) -> BusMethodAnswer)
    }

    unowned let core: BusCore
    let id: UInt64
    let kind: Kind

    init(core: BusCore, id: UInt64, kind: Kind) {
        self.core = core
        self.id = id
        self.kind = kind
    }

    /// The connection closed before the reply came.
    func failed(_ reason: BusError) {
        if case .reply(let reply) = kind { reply(.failure(reason)) }
    }
}

private let slotHandler: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let box = Unmanaged<SlotBox>.fromOpaque(userdata).takeUnretainedValue()
    return box.core.handle(box, message)
}

private let installHandler: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let box = Unmanaged<SlotBox>.fromOpaque(userdata).takeUnretainedValue()
    box.core.installed(box, message)
    return 0
}

extension BusError {
    static let closed = BusError(name: Names.disconnected, message: "the D-Bus connection is closed")
}

extension Optional where Wrapped == String {
    func withOptionalCString<T>(_ body: (UnsafePointer<CChar>?) -> T) -> T {
        switch self {
        case .some(let value): return value.withCString { body($0) }
        case .none: return body(nil)
        }
    }
}
