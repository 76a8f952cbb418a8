import WharfSystem

/// Bytes (or documents) that several connections hold together against one limit.
///
/// The daemon gives each app four, shared by all its sessions:
///
/// - one for its unfinished messages: a message is held in memory from its first byte to its
///   last, up to `--max-message-bytes` (64 MiB) each, and an app's dozens of connections could
///   otherwise have the daemon hold gigabytes of messages that never finish. A connection whose
///   unfinished message would take the app past it throws that message away (as it would an
///   oversized one), says so, and goes on (``move(from:to:)``);
/// - one for what its dialogs have queued for the presenter connection, which another process
///   reads, and may read slowly or not at all: a `present…` whose `presenter/show` would take
///   the app past it is refused (``charge(_:)``);
/// - one counting, one each, the documents its exporters hold open (a `path` or `fd` document is
///   an open descriptor until its exporter ends), and one for the bytes of its `text` and
///   `base64` documents, held until their exporter ends: past either, the exporter is refused.
public final class ByteBudget: Sendable {
    public let limit: Int
    private let held = Locked<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Moves one holder's share from `old` to `new` bytes; false, and nothing moved, when that
    /// would take the total past the limit. Giving back always succeeds.
    func move(from old: Int, to new: Int) -> Bool {
        held.withValue { held in
            guard new <= old || held - old + new <= limit else { return false }
            held += new - old
            return true
        }
    }

    /// Counts `bytes` against the budget for as long as the charge lives; nil when they do not
    /// fit. More than the whole budget fits when nothing else is held: it goes alone (as one
    /// message larger than a connection's output budget does) rather than never.
    public func charge(_ bytes: Int) -> BudgetCharge? {
        let taken = held.withValue { held -> Bool in
            guard held == 0 || held + bytes <= limit else { return false }
            held += bytes
            return true
        }
        return taken ? BudgetCharge(bytes: bytes, budget: self) : nil
    }

    /// What all the holders hold now.
    public var bytesHeld: Int { held.withValue { $0 } }
}

/// Bytes counted against a ``ByteBudget`` until the last reference to the charge goes.
///
/// Released by being let go of, not by a call: whatever drops what was counted (a message
/// written whole, or thrown away with a connection that closed or failed; a dialog refused
/// before it was sent) gives the bytes back with it, and no path can forget to.
public final class BudgetCharge: Sendable {
    public let bytes: Int
    private let budget: ByteBudget

    fileprivate init(bytes: Int, budget: ByteBudget) {
        self.bytes = bytes
        self.budget = budget
    }

    deinit { _ = budget.move(from: bytes, to: 0) }
}
