/// The dialogs that ended most recently, up to a number: late input about one of them is told
/// "already ended" rather than "unknown dialog", without every dialog being remembered forever.
///
/// A ring: once full, each new id takes the place of the oldest (dropping the oldest from the
/// front of an array instead moved every remembered id on each dialog's end).
public struct RecentlyEnded: Sendable {
    /// How many ids are remembered; older ones count as unknown.
    public let capacity: Int
    /// What the engine and the presenter hub remember per client.
    public static let defaultCapacity = 4096
    private var members: Set<DialogID> = []
    private var order: [DialogID] = []
    /// Once the ring is full: the slot of the oldest id, the next to be replaced.
    private var oldest = 0

    public init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0, "a ring of no ids remembers nothing")
        self.capacity = capacity
    }

    public func contains(_ id: DialogID) -> Bool { members.contains(id) }

    public mutating func insert(_ id: DialogID) {
        guard members.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
            return
        }
        members.remove(order[oldest])
        order[oldest] = id
        oldest = (oldest + 1) % capacity
    }
}
