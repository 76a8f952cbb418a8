import WharfJSON

/// Params or a result that is not what the protocol says, naming the field: always answered
/// with -32602 (`options.timeoutMs: expected an integer, got a string`).
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
