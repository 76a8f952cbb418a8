/// A file dialog to show on the desktop, in the terms every desktop presenter understands:
/// the portal's FileChooser, zenity and kdialog each build their call from this one value.
///
/// Paths are bytes (`[UInt8]`, no NUL): Linux file names are not Unicode, and a folder or a
/// name must reach the dialog exactly as it is on disk. Titles and labels are text.
public struct DesktopDialogRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Pick existing files (`multiple`: more than one) or, with `directory`, folders.
        case open(multiple: Bool, directory: Bool)
        /// Pick one place to save: `currentName` is the suggested name, `currentFile` an
        /// existing file being saved again (the portal selects it).
        case save(currentName: [UInt8], currentFile: [UInt8]?)
        /// Pick a folder to save several files into, named `files` (bare names, no `/`).
        case saveFiles(files: [[UInt8]])
    }

    public var kind: Kind
    /// The window title.
    public var title: String
    /// A sentence under or beside the title. No desktop dialog has a place for it (zenity
    /// ignores `--text` for file selection; the portal has no such option), so presenters
    /// show it in the title: see ``displayTitle``.
    public var message: String?
    /// The accept button's label (portal only; zenity and kdialog have fixed buttons).
    public var acceptLabel: String?
    /// Modal to `parentWindow` (portal: `modal`; zenity: `--modal`).
    public var modal: Bool
    /// The editor's window, in the portal's convention, passed verbatim: `x11:<hex XID>` or
    /// `wayland:<exported handle>`, or empty.
    public var parentWindow: String
    public var filters: [DesktopDialogFilter]
    /// Which of `filters` is selected at first.
    public var currentFilter: Int?
    /// The folder to start in (an absolute path).
    public var currentFolder: [UInt8]?

    public init(
        kind: Kind, title: String, message: String? = nil, acceptLabel: String? = nil, modal: Bool = true,
        parentWindow: String = "", filters: [DesktopDialogFilter] = [], currentFilter: Int? = nil,
        currentFolder: [UInt8]? = nil
    ) {
        self.kind = kind
        self.title = title
        self.message = message
        self.acceptLabel = acceptLabel
        self.modal = modal
        self.parentWindow = parentWindow
        self.filters = filters
        self.currentFilter = currentFilter
        self.currentFolder = currentFolder
    }

    /// The title with the message after it (`Title — message`), since no presenter shows a
    /// message of its own. A rejected pick that reopens the dialog says why through this.
    public var displayTitle: String {
        guard let message, !message.isEmpty else { return title }
        return title.isEmpty ? message : title + " — " + message
    }

    /// The current filter, when it names one of `filters`.
    var validCurrentFilter: Int? {
        guard let currentFilter, filters.indices.contains(currentFilter) else { return nil }
        return currentFilter
    }
}

/// One entry of a dialog's file-type menu: a name and what it lets through.
public struct DesktopDialogFilter: Sendable, Equatable {
    public enum Pattern: Sendable, Equatable {
        /// A shell glob on the file name (`*.png`); presenters make it case-insensitive.
        case glob(String)
        /// A MIME type, `image/png` or `image/*` (portal and kdialog; zenity has none).
        case mime(String)
    }

    public var name: String
    public var patterns: [Pattern]

    public init(name: String, patterns: [Pattern]) {
        self.name = name
        self.patterns = patterns
    }

    public var globs: [String] { patterns.compactMap { if case .glob(let g) = $0 { return g } else { return nil } } }
    public var mimeTypes: [String] { patterns.compactMap { if case .mime(let m) = $0 { return m } else { return nil } } }
}
