import WharfSystem

/// The file descriptors a peer passed over a Unix socket (`SCM_RIGHTS`), numbered in the order
/// they arrived on the connection, from 0, and waiting for a message to claim them by number.
///
/// A descriptor arrives with the bytes of the message that names it, or before them, so a
/// message can always claim what it names by the time it is read. Each number is claimed once;
/// at most ``limit`` wait unclaimed (the oldest are closed beyond that), and whatever is left
/// is closed when the connection ends.
public final class PassedDescriptors: Sendable {
    /// The most descriptors that wait unclaimed per connection.
    public static let limit = 64

    private struct State {
        var waiting: [Int: FileDescriptor] = [:]
        var next = 0
        var closed = false
    }

    private let state = Locked(State())
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Descriptors that arrived with a read, in order.
    func add(_ descriptors: [FileDescriptor]) {
        let dropped = state.withValue { state -> [Int] in
            for descriptor in descriptors {
                if state.closed {
                    descriptor.close()
                    continue
                }
                state.waiting[state.next] = descriptor
                state.next += 1
            }
            var dropped: [Int] = []
            while state.waiting.count > Self.limit, let oldest = state.waiting.keys.min() {
                state.waiting.removeValue(forKey: oldest)?.close()
                dropped.append(oldest)
            }
            return dropped
        }
        if !dropped.isEmpty {
            logger.warning("closed passed descriptors \(dropped) unclaimed (at most \(Self.limit) wait per connection)")
        }
    }

    /// Takes descriptor `number`, which the caller owns from now on; nil when no descriptor has
    /// that number, or it was claimed already, or dropped.
    public func take(_ number: Int) -> FileDescriptor? {
        state.withValue { $0.waiting.removeValue(forKey: number) }
    }

    /// How many arrived so far (the next one's number).
    public var received: Int { state.withValue { $0.next } }

    /// Closes every unclaimed descriptor, now and arriving later.
    func closeAll() {
        let left = state.withValue { state -> [FileDescriptor] in
            state.closed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for descriptor in left { descriptor.close() }
    }
}
