import WharfJSONRPC

/// Wharf's own error codes, in JSON-RPC's server-error range (-32099…-32000), clear of the
/// codes the LSP reserves there (-32002 serverNotInitialized, -32001 unknownErrorCode).
/// The numbers are part of the protocol: never renumber, only add. Tabled in protocol/README.md.
extension ErrorCode {
    /// `presentImporter`/`presentExporter` with no presenter configured for this client.
    public static let noPresenter = ErrorCode(-32010)
    /// A dialog with this `presentationId` is already presented; `data.dialogId` names it.
    public static let alreadyPresented = ErrorCode(-32011)
    /// The client already has `--max-dialogs-per-client` dialogs open.
    public static let tooManyDialogs = ErrorCode(-32012)
    /// No dialog with this id belongs to this client.
    public static let dialogNotFound = ErrorCode(-32013)
    /// The dialog has already ended; the input came too late.
    public static let dialogEnded = ErrorCode(-32014)
    /// `dialog/choose` named something the dialog does not allow; the dialog stays open.
    public static let choiceRejected = ErrorCode(-32015)
    /// The chosen destination exists and `overwrite` was not true; the dialog stays open.
    public static let fileExists = ErrorCode(-32016)
    /// The client holds no grant that covers this URL, or the file is no longer the one granted.
    public static let accessDenied = ErrorCode(-32020)
    /// The bookmark is unknown, forged, of another app, or its file is gone.
    public static let bookmarkInvalid = ErrorCode(-32021)
    /// No active lease has this `accessId` for this client (never issued, or already released).
    public static let accessNotFound = ErrorCode(-32022)
    /// A file operation failed; the message names the file and the cause.
    public static let fileOperationFailed = ErrorCode(-32030)
    /// The presenter could not show or finish the dialog (a `dialog/completed` error).
    public static let presenterFailed = ErrorCode(-32040)
    /// The client's `exporter/snapshot` answer was an error or unusable (a `dialog/completed` error).
    public static let snapshotFailed = ErrorCode(-32041)
}
