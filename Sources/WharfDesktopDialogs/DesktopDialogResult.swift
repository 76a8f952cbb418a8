/// How a desktop dialog ended. Every dialog ends exactly once.
public enum DesktopDialogResult: Sendable, Equatable {
    case chosen(DesktopDialogChoice)
    case cancelled(DesktopDialogCancellation)
    /// The presenter could not show or finish the dialog; the sentence says why (for the
    /// client's `dialog/failed` or a log).
    case failed(String)
}

/// Who ended a dialog without a choice.
public enum DesktopDialogCancellation: Sendable, Equatable {
    /// The human: Cancel, Escape, or closing the window (portal responses 1 and 2; exit 1,
    /// unless GTK said it could not open the display).
    case user
    /// The caller, through ``DesktopDialogSession/cancel(_:)`` (the client's `cancel`, a
    /// disconnect).
    case caller
    /// A timeout: the caller's (``DesktopDialogSession/cancel(_:)`` with `.timedOut`) or
    /// zenity's own (exit 5).
    case timedOut
}

/// What the human chose.
public struct DesktopDialogChoice: Sendable, Equatable {
    /// Absolute paths, as bytes, exactly as on disk. Open: the chosen files or folders. Save:
    /// one path. Save several: one path per requested file, in order (the portal may have
    /// renamed some to avoid existing files).
    public var paths: [[UInt8]]
    /// True when the dialog itself asked "Replace?" before returning a path that exists, so
    /// the caller may write over an existing file without asking again: the portal's and
    /// zenity's save dialogs (with `--confirm-overwrite`), kdialog's. False for open dialogs
    /// and for saving several files (the human chose a folder; nobody was asked about names:
    /// zenity and kdialog ask afterwards, see ``DesktopReplaceQuestion``).
    public var overwriteConfirmed: Bool
    /// The index (in the request's `filters`) of the filter selected when the human accepted,
    /// when the presenter says (the portal does; zenity and kdialog do not).
    public var selectedFilter: Int?
    /// Save several: the folder the human chose.
    public var folder: [UInt8]?

    public init(paths: [[UInt8]], overwriteConfirmed: Bool = false, selectedFilter: Int? = nil, folder: [UInt8]? = nil) {
        self.paths = paths
        self.overwriteConfirmed = overwriteConfirmed
        self.selectedFilter = selectedFilter
        self.folder = folder
    }
}
