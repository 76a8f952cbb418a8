/// A match rule (`type='signal',interface='…',…`) for ``BusConnection/subscribe(_:handler:)``.
///
/// Values are quoted as the D-Bus specification says: inside single quotes, and a quote itself
/// as `'\''`. Unset fields match anything.
public struct BusMatchRule: Sendable, Equatable, CustomStringConvertible {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// `arg0='…'`: the first string argument (NameOwnerChanged's name).
    public var arg0: String?

    public init(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil, arg0: String? = nil) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule as the bus reads it; only signals are matched.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // Split at the quote's byte: followed by a combining mark it is one Character with
            // it, but still a quote to the bus.
            let pieces = value.utf8.split(separator: UInt8(ascii: "'"), omittingEmptySubsequences: false)
            parts.append(key + "='" + pieces.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "'\\''") + "'")
        }
        add("sender", sender)
        add("path", path)
        add("interface", interface)
        add("member", member)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// The bus's own NameOwnerChanged signal for `name`: how a client learns that a service left.
    public static func nameOwnerChanged(_ name: String) -> BusMatchRule {
        BusMatchRule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", arg0: name)
    }
}
