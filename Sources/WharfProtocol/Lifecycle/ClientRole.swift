import WharfJSON

/// What a connection is to the daemon: a client (an app asking for dialogs), or the presenter
/// that shows the dialogs of every client that does not show its own.
public enum ClientRole: String, Sendable {
    case client, presenter
}
