import WharfSystem

/// Bytes of unfinished messages that several connections may hold together.
///
/// A message is held in memory from its first byte to its last, up to `--max-message-bytes`
/// (64 MiB) each; a daemon serving one app over dozens of connections could be made to hold
/// gigabytes of messages that never finish. The daemon gives the connections of one app one
/// budget: a connection whose unfinished message would take the app past it throws that
/// message away (as it would an oversized one) and says so, and goes on.
public final class InputBudget: Sendable {
    public let limit: Int
    private let held = Locked<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Moves one connection's share from `old` to `new` bytes; false, and nothing moved, when
    /// that would take the total past the limit. Giving back always succeeds.
    func move(from old: Int, to new: Int) -> Bool {
        held.withValue { held in
            guard new <= old || held - old + new <= limit else { return false }
            held += new - old
            return true
        }
    }

    /// What all the connections hold now (for tests).
    public var bytesHeld: Int { held.withValue { $0 } }
}
