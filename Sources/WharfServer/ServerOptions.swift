import WharfJSONRPC
import WharfSystem

/// Everything `wharf` can be told on its command line, with the defaults a client gets when it
/// says nothing.
public struct ServerOptions: Sendable, Equatable {
    public var framing: FramingMode = .auto
    public var maxMessageBytes = 64 * 1024 * 1024
    public var logLevel: Logger.Level = .warning
    public var logFile: FilePath?
    /// `--presenter`: who shows dialogs to clients that do not draw their own.
    public var presenter = PresenterSetting.auto
    /// `--state-dir`: where the SQLite state lives; nil means `$XDG_STATE_HOME/wharf`, and
    /// `":memory:"` keeps it in memory.
    public var stateDirectory: FilePath?
    /// `--max-dialogs-per-client`.
    public var maxDialogsPerClient = 64

    public init() {}
}
