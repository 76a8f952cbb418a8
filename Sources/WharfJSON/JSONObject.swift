/// A JSON object that remembers the order of its keys.
///
/// Protocol objects are small (a handful of members), so members live in one array and lookups
/// scan it: cheaper than hashing for the sizes Wharf sees, and order comes for free. Setting an
/// existing key replaces its value in place, as jansson does for duplicate keys.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var members: [(key: String, value: JSON)]

    public init() { members = [] }

    public init(_ members: [(key: String, value: JSON)]) {
        self.init(capacity: members.count)
        for member in members { self[member.key] = member.value }
    }

    /// An empty object with room for `capacity` members.
    init(capacity: Int) {
        members = []
        members.reserveCapacity(capacity)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public subscript(key: String) -> JSON? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Appends without checking for an existing key; for decoders that know keys are unique.
    mutating func appendUnchecked(key: String, value: JSON) {
        members.append((key: key, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        members.makeIterator()
    }

    /// Objects are equal when they hold the same keys with equal values, in any order (JSON's
    /// own notion of equality; order matters only on output).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members where rhs[member.key] != member.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with `==`.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(literal: elements)
    }

    /// The members of a literal, a later duplicate key replacing the earlier one's value (as
    /// assigning them in turn would). Not by way of an array of pairs: a notification is built
    /// from literals, and each copy would be one more allocation.
    init(literal elements: [(String, JSON)]) {
        self.init(capacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }
}
