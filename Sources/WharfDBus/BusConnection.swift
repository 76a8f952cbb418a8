import WharfSystem

/// A connection to a message bus, owned by a thread of its own.
///
/// Every method returns at once: the work is handed to the connection's thread (see
/// ``BusCore``), and answers come back through callbacks on the connection's delivery queue,
/// never on the caller's thread and never with a lock of the caller's held. So a caller may
/// call from inside its own critical section, and a callback may call back in.
///
/// Operations run on the bus in the order they were made, which is what makes "subscribe,
/// then call" safe: see ``subscribe(_:installed:handler:)``.
public final class BusConnection: Sendable {
    /// The bus-assigned unique name of this connection (`:1.42`).
    public let uniqueName: String
    public let address: String
    let core: BusCore

    private init(uniqueName: String, address: String, core: BusCore) {
        self.uniqueName = uniqueName
        self.address = address
        self.core = core
    }

    deinit { core.requestClose() }

    // MARK: Opening

    /// Connects to `address` and says Hello. `completion` gets the connection, or why there is
    /// none (the address is unusable, nothing listens there, or the bus did not complete the
    /// handshake within `timeoutMs`). `onDisconnect` runs once if the connection is lost or
    /// closed later.
    public static func open(
        address: String, description: String = "wharf", timeoutMs: Int,
        onDisconnect: (@Sendable (BusError) -> Void)? = nil,
        completion: @escaping @Sendable (Result<BusConnection, BusError>) -> Void
    ) {
        let core: BusCore
        do {
            core = try BusCore()
        } catch {
            return startThread { completion(.failure(error)) }
        }
        core.onDisconnect = onDisconnect
        core.start(address: address, description: description, timeoutMs: timeoutMs) { result in
            // Bus thread: hand over through the delivery queue like every other answer.
            switch result {
            case .success(let unique):
                let connection = BusConnection(uniqueName: unique, address: address, core: core)
                core.delivery.async { completion(.success(connection)) }
            case .failure(let error):
                core.delivery.async { completion(.failure(error)) }
            }
        }
    }

    /// ``open(address:description:timeoutMs:onDisconnect:completion:)``, waiting for the answer.
    /// For tools and tests: never call it holding a lock that a callback might want.
    public static func openAndWait(address: String, description: String = "wharf", timeoutMs: Int) -> Result<BusConnection, BusError> {
        let answer = OneShot<Result<BusConnection, BusError>>()
        open(address: address, description: description, timeoutMs: timeoutMs) { answer.set($0) }
        return answer.wait()
    }

    /// Closes the connection. Calls still waiting for a reply fail; subscriptions end.
    public func close() { core.requestClose() }

    /// Closes the connection and waits, up to `timeoutMs`, until what was handed to it before
    /// (replies among it) has been sent and the connection is closed: for a process about to
    /// exit. False when the time ran out. Never call it from a callback of this connection.
    @discardableResult
    public func close(waitingUpTo timeoutMs: Int) -> Bool {
        core.requestClose()
        return core.waitUntilClosed(until: Deadline(secondsFromNow: Double(timeoutMs) / 1000))
    }

    /// False once the connection was closed or lost.
    public var isOpen: Bool { !core.isClosed }

    /// Runs `work` on the connection's delivery queue, in order with replies and signals: a
    /// caller that must not run code on its own thread (it may hold a lock) hands it over here.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        core.delivery.async(work)
    }

    // MARK: Calling

    /// Calls `member` on `destination`'s object `path`. `reply` runs exactly once: with the
    /// reply, or with the error reply, a timeout after `timeoutMs`, or the connection's end.
    public func call(
        destination: String?, path: String, interface: String, member: String, body: [BusValue] = [],
        timeoutMs: Int, reply: @escaping @Sendable (Result<BusMessage, BusError>) -> Void
    ) {
        let request = MethodCall(destination: destination, path: path, interface: interface, member: member,
                                 body: body, timeoutMs: timeoutMs)
        let delivery = core.delivery
        if !core.enqueue({ $0.call(request, reply: reply) }) {
            delivery.async { reply(.failure(.closed)) }
        }
    }

    /// ``call(destination:path:interface:member:body:timeoutMs:reply:)``, waiting for the answer.
    /// For tools and tests: never call it holding a lock that a callback might want.
    public func callAndWait(
        destination: String?, path: String, interface: String, member: String, body: [BusValue] = [], timeoutMs: Int
    ) -> Result<BusMessage, BusError> {
        let answer = OneShot<Result<BusMessage, BusError>>()
        call(destination: destination, path: path, interface: interface, member: member, body: body,
             timeoutMs: timeoutMs) { answer.set($0) }
        return answer.wait()
    }

    // MARK: Signals

    /// Delivers every signal matching `rule` to `handler` until ``unsubscribe(_:)``.
    ///
    /// The subscription is in force, locally and on the bus, for every call made after this
    /// returns: the AddMatch goes out before anything enqueued later, and the bus applies one
    /// connection's messages in order. There is no need to wait for `installed` (which reports
    /// the bus's answer to AddMatch, for those who care) before calling.
    @discardableResult
    public func subscribe(
        _ rule: BusMatchRule, installed: (@Sendable (BusError?) -> Void)? = nil,
        handler: @escaping @Sendable (BusMessage) -> Void
    ) -> BusSubscription {
        let subscription = BusSubscription(id: BusSubscription.next())
        core.enqueue { $0.subscribe(id: subscription.id, rule, handler: handler, installed: installed) }
        return subscription
    }

    /// Ends a subscription (or an exported object): no handler runs for it once the
    /// connection's thread has taken this in. Handlers already queued for delivery still run.
    public func unsubscribe(_ subscription: BusSubscription) {
        core.enqueue { $0.remove(id: subscription.id) }
    }

    // MARK: Serving

    /// Serves method calls to the object `path`. `handler` runs **on the connection's thread**
    /// and must answer at once; it exists for test services (an echo service, a portal that
    /// never answers), not for Wharf itself.
    @discardableResult
    public func export(path: String, handler: @escaping @Sendable (BusMessage) -> BusMethodAnswer) -> BusSubscription {
        let subscription = BusSubscription(id: BusSubscription.next())
        core.enqueue { _ = $0.export(id: subscription.id, path: path, handler: handler) }
        return subscription
    }

    /// Serves method calls to the object `path`: Wharf's own services. `handler` runs **on the
    /// connection's thread** and must return at once: with an answer, or with
    /// ``BusMethodAnswer/noReply`` when it keeps the ``BusPendingReply`` and answers through it
    /// later, from any thread (a dialog, which takes as long as a person takes). Anything that
    /// waits (a dialog, a child process, the disk) belongs on another thread. `.notHandled`
    /// leaves the call to sd-bus, which answers UnknownMethod.
    @discardableResult
    public func serve(
        path: String, handler: @escaping @Sendable (BusMessage, BusPendingReply) -> BusMethodAnswer
    ) -> BusSubscription {
        let subscription = BusSubscription(id: BusSubscription.next())
        core.enqueue { _ = $0.serve(id: subscription.id, path: path, handler: handler) }
        return subscription
    }

    /// Emits `signal` from this connection.
    public func emit(_ signal: BusSignal) {
        core.enqueue { _ = $0.emit(signal) }
    }

    /// Asks the bus for the well-known `name` (not queueing behind another owner); true when
    /// this connection became its primary owner.
    public func requestName(_ name: String, timeoutMs: Int = 5000) -> Result<Bool, BusError> {
        callAndWait(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "RequestName", body: [.string(name), .uint32(4)], timeoutMs: timeoutMs)
            .map { $0.body.first?.uint32Value == 1 }
    }
}

/// A signal subscription or an exported object, to end with ``BusConnection/unsubscribe(_:)``.
public struct BusSubscription: Sendable, Hashable {
    let id: UInt64

    private static let counter = Locked<UInt64>(0)
    static func next() -> UInt64 { counter.withValue { $0 += 1; return $0 } }
}

