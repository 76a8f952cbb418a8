import WharfJSONRPC
import WharfSystem

/// Everything `wharf` can be told on its command line, with the defaults a client gets when it
/// says nothing.
public struct ServerOptions: Sendable, Equatable {
    public var framing: FramingMode = .auto
    public var maxMessageBytes = 64 * 1024 * 1024
    public var logLevel: Logger.Level = .warning
    public var logFile: String?

    public init() {}
}
