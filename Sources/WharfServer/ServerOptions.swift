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
    /// `wharf pick` and `wharf save`: a dialog no presenter can show is explained to a person
    /// at a shell (what to run, install or pass), not to a client.
    public var explainsToShellUser = false
    /// `--state-dir`: where the SQLite state lives; nil means `$XDG_STATE_HOME/wharf`, and
    /// `":memory:"` keeps it in memory.
    public var stateDirectory: FilePath?
    /// `--max-dialogs-per-client`.
    public var maxDialogsPerClient = 64
    /// `--max-requests-per-client`: requests of one connection waiting for their answers
    /// before it stops being read.
    public var maxRequestsPerClient = 256
    /// `--max-output-bytes-per-client`: output queued for one connection before it stops
    /// being read.
    public var maxOutputBytesPerClient = 16 * 1024 * 1024
    /// The daemon (`--listen`): a connection may say `"role": "presenter"` and show the other
    /// clients' dialogs. Over standard I/O there are no others.
    public var acceptsPresenterConnections = false
    /// `--max-clients`: connections the daemon serves at once.
    public var maxClients = 1024
    /// `--max-clients-per-app`: connections one app may have at once, so that no app (a
    /// sandboxed one opening connection after connection) takes every place of `--max-clients`.
    public var maxClientsPerApp = 64
    /// `--max-presenter-bytes-per-app`: bytes of `presenter/show` one app's dialogs may have
    /// waiting to be written to the presenter connection (all its sessions together); a dialog
    /// that would take it past this is refused (`presenterBacklog`). 4 MiB: an honest app's
    /// dialog is a few KiB, and even its 64 open dialogs of 64 KiB each (hundreds of declared
    /// types) fit; one dialog larger than this still goes, alone, so none is unpresentable; and
    /// an app that declares 1,024 types under one parent and presents 64 dialogs of them, some
    /// 16 MiB each, holds at most one of them in the daemon, not 1 GiB.
    public var maxPresenterBytesPerApp = 4 * 1024 * 1024
    /// `--max-open-documents-per-app`: documents one app's exporters (all its sessions
    /// together) may hold open in the daemon. Over the daemon a `path` or `fd` document is an
    /// open descriptor until its dialog ends, and within the other bounds one app could hold
    /// 64 connections × 64 exporters × 256 documents, a million, past any descriptor limit,
    /// after which the daemon could accept or open nothing for anyone. 1,024: an honest app
    /// exports a few at a time.
    public var maxOpenDocumentsPerApp = 1024
    /// `--max-document-bytes-per-app`: bytes of `text` and `base64` documents one app's open
    /// exporters may hold in the daemon's memory (all apps together, four times this). Each
    /// message may carry up to `--max-message-bytes` of them, so without it one app's 64
    /// connections × 64 exporters held whatever they sent until the dialogs ended. 256 MiB:
    /// four of the largest documents one message can carry; one larger than this still goes
    /// when the app holds nothing else.
    public var maxDocumentBytesPerApp = 256 * 1024 * 1024
    /// `--idle-timeout`: the daemon exits after this many seconds without a connection; 0 never.
    public var idleTimeoutSeconds = 0
    /// `--initialize-timeout`: a daemon's connection that has not been answered `initialize`
    /// this many seconds after it arrived is closed, so that silent connections cannot hold
    /// every place of `--max-clients`; 0 never. 30 s: a client sends `initialize` first, at once.
    public var initializeTimeoutSeconds = 30
    /// `--spin-microseconds`: how long a read loop or worker that has just had work looks for
    /// more before sleeping (``SpinBeforeSleep``); 0 never. 100 µs by default where the
    /// process may run on more than one processor.
    public var spinMicroseconds = SpinBeforeSleep.defaultMicroseconds

    public init() {}

    /// How each connection is read and written.
    public var connectionOptions: Connection.Options {
        var options = Connection.Options(framing: framing, maxMessageBytes: maxMessageBytes)
        options.maxPendingRequests = maxRequestsPerClient
        options.backlogLimit = maxOutputBytesPerClient
        return options
    }
}
