/// Who asked for a dialog: one connection to the server (a later daemon mode holds many).
///
/// The server hands these out; the engine only compares them. Every dialog belongs to exactly
/// one client, and a client never sees, lists or ends another client's dialogs.
public struct ClientID: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { self.rawValue = value }

    public var description: String { "client \(rawValue)" }
}

/// One presented dialog, unique within an engine for its whole life (ids are never reused,
/// so a late message about an ended dialog can be told apart from a message about a new one).
public struct DialogID: Hashable, Sendable, CustomStringConvertible {
    /// The form the id takes on the wire.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// Which of SwiftUI's file dialogs this is.
public enum DialogKind: String, Sendable, Hashable, CustomStringConvertible {
    /// `fileImporter`: the user picks existing files.
    case importer
    /// `fileExporter`: the user picks where documents are saved.
    case exporter
    /// `fileMover`: the user picks the folder the app's files are moved into.
    case mover

    public var description: String { rawValue }
}
