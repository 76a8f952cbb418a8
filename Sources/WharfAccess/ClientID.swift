/// One connection (session) to the server, as the server names it. Opaque to the store; it only
/// has to be unique within one process, because the store pairs it with its own per-process
/// instance id before anything is written to the shared database.
public struct ClientID: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }
}
