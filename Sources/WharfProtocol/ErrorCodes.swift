/// The protocol's error codes: JSON-RPC's and the LSP's, then Wharf's own in JSON-RPC's
/// server-error range (-32099…-32000), clear of the codes the LSP reserves there. The numbers are
/// part of the protocol: never renumbered, only added to. Tabled in protocol/README.md and in
/// protocol/wharf.schema.json under the same names (a test holds the three together).
public enum WharfErrorCode: Int64, Sendable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case serverNotInitialized = -32002
    case requestCancelled = -32800

    /// `presentImporter`/`presentExporter` with no presenter usable for this client.
    case noPresenter = -32010
    /// A dialog with this `presentationId` is already presented; `data.dialogId` names it.
    case alreadyPresented = -32011
    /// The client already has `--max-dialogs-per-client` dialogs open; or, over the daemon, an
    /// exporter's documents would take its app past `--max-open-documents-per-app` or
    /// `--max-document-bytes-per-app`.
    case tooManyDialogs = -32012
    /// No dialog with this id belongs to this client.
    case dialogNotFound = -32013
    /// The dialog has already ended; the input came too late.
    case dialogEnded = -32014
    /// `dialog/choose` named something the dialog does not allow; the dialog stays open.
    case choiceRejected = -32015
    /// The chosen destination exists and `overwrite` was not true; the dialog stays open.
    case fileExists = -32016
    /// A presenter method (`dialog/list`, `dialog/choose`, `dialog/dismiss`, `dialog/fail`) for a
    /// dialog this connection does not present.
    case notPresenter = -32017
    /// `initialize` with `role: presenter` refused: another connection presents already, the
    /// peer is sandboxed, or this server has no other clients (standard I/O).
    case presenterRefused = -32018
    /// `presentImporter`/`presentExporter` over the daemon refused, nothing shown: the presenter
    /// connection has not yet read what this app's dialogs queued for it, and this one would take
    /// the app past `--max-presenter-bytes-per-app`. Worth trying again once it has read.
    case presenterBacklog = -32019
    /// The client holds no grant that covers this URL, or the file is no longer the one granted.
    case accessDenied = -32020
    /// The bookmark is unknown, forged, of another app, or its file is gone.
    case bookmarkInvalid = -32021
    /// No active lease has this `accessId` for this client (never issued, or already released).
    case accessNotFound = -32022
    /// A file operation failed; the message names the file and the cause.
    case fileOperationFailed = -32030
    /// A mover's folder already holds a name of a file to be moved, and the human was not asked
    /// (`dialog/choose` without `conflictResolution`: refused, the dialog stays open; a presenter
    /// that cannot ask: the dialog ends with it, and nothing was moved).
    case nameConflict = -32031
    /// The presenter could not show or finish the dialog (a `dialog/completed` error).
    case presenterFailed = -32040
    /// The client's `exporter/snapshot` answer was an error or unusable (a `dialog/completed` error).
    case snapshotFailed = -32041
    /// A connection to the daemon refused as it arrives: the daemon serves `--max-clients`
    /// connections already, or the app `--max-clients-per-app`. Sent once, with `"id": null`
    /// and `data: {limit, option}`, before the daemon closes the connection.
    case tooManyClients = -32050
}
