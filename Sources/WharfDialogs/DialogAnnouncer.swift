/// Who tells the client about a dialog the engine has just registered, before its presenter is
/// shown it: the client's first delivery for the dialog. A server that answers the request with
/// the dialog's id here guarantees the client learns the id before any notification about it.
public protocol DialogAnnouncer: Sendable {
    /// Tells the client about `dialog`, as the presenter will be shown it. False when the client
    /// was not told (its request was cancelled meanwhile, or the server refused the dialog and
    /// answered so): the engine then withdraws the dialog, which is never shown and which no
    /// event names.
    func announce(_ dialog: PresentedDialog) -> Bool
}

/// The announcer of a caller with nobody to tell before the dialog is shown (a tool, a test).
public struct NoAnnouncement: DialogAnnouncer {
    public init() {}
    public func announce(_ dialog: PresentedDialog) -> Bool { true }
}

/// Where the engine's events go: called through each client's outbox, in the engine's order
/// for that client, with no lock held. It may call back into the engine.
public protocol DialogEventSink: Sendable {
    func deliver(_ event: DialogEvent, to client: ClientID)
}
