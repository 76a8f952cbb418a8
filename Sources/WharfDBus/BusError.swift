import WharfSystem

/// A D-Bus failure: an error reply (name and message, as the peer sent them), a timeout or a
/// vanished peer (sd-bus answers those with synthetic error replies of the standard names), or a
/// local failure (an errno from sd-bus, told with the operation that failed).
public struct BusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.ServiceUnknown`.
    public var name: String
    /// The human part, as the peer or sd-bus wrote it.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// A failed sd-bus call: `result` is its negative errno.
    static func local(_ operation: String, _ result: Int32) -> BusError {
        BusError(name: Names.failed, message: SystemError(code: -result, operation: operation).description)
    }

    public var description: String { "\(message) (\(name))" }

    /// Error names Wharf reacts to.
    public enum Names {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    }

    /// The peer did not answer in time (sd-bus's own timeout, or the bus's).
    public var isTimeout: Bool { name == Names.timeout || name == Names.noReply && message.contains(ascii: "imed out") }

    /// Nothing owns the destination and nothing can be activated for it.
    public var isNoSuchService: Bool { name == Names.serviceUnknown || name == Names.nameHasNoOwner }
}
