import WharfFileWriting
import WharfSystem

/// The view modifiers that configure a file dialog (`fileDialog…`, `fileExporterFilenameLabel`),
/// shared by both kinds of dialog.
public struct DialogOptions: Sendable, Equatable {
    /// `fileDialogDefaultDirectory`. A remembered directory (see ``customizationId``) wins over
    /// it; home is the fallback.
    public var defaultDirectory: FilePath?
    public var title: String?
    /// `fileDialogMessage`.
    public var message: String?
    /// `fileDialogConfirmationLabel`.
    public var confirmationLabel: String?
    /// `fileDialogBrowserOptions`.
    public var browserOptions: BrowserOptions
    /// `fileDialogURLEnabled`, as a predicate; nil enables everything the types allow.
    public var urlEnabled: URLPredicate?
    /// `fileDialogImportsUnresolvedAliases`: a chosen symlink is returned as itself instead of
    /// its target (importer only).
    public var importsUnresolvedAliases: Bool
    /// `fileDialogCustomizationID`: the directory the user ended in is remembered under this id.
    public var customizationId: String?
    /// Ends the dialog with reason `timeout` if it is still waiting for the user (or, for an
    /// exporter, for the client's snapshots) after this long.
    public var timeoutMs: Int?
    /// `fileExporterFilenameLabel` (exporter only).
    public var filenameLabel: String?
    /// The window the dialog is modal to (`x11:<hex XID>`, `wayland:<handle>`), for desktop
    /// presenters; passed through as it is.
    public var parentWindow: String?
    /// Named filters the person switches between; empty for none.
    public var filters: [DialogFilter]
    /// The index of the filter selected at first.
    public var currentFilter: Int
    /// Choices shown beside the file list.
    public var choices: [DialogChoice]

    public init(
        defaultDirectory: FilePath? = nil,
        title: String? = nil,
        message: String? = nil,
        confirmationLabel: String? = nil,
        browserOptions: BrowserOptions = [],
        urlEnabled: URLPredicate? = nil,
        importsUnresolvedAliases: Bool = false,
        customizationId: String? = nil,
        timeoutMs: Int? = nil,
        filenameLabel: String? = nil,
        parentWindow: String? = nil,
        filters: [DialogFilter] = [],
        currentFilter: Int = 0,
        choices: [DialogChoice] = []
    ) {
        self.defaultDirectory = defaultDirectory
        self.title = title
        self.message = message
        self.confirmationLabel = confirmationLabel
        self.browserOptions = browserOptions
        self.urlEnabled = urlEnabled
        self.importsUnresolvedAliases = importsUnresolvedAliases
        self.customizationId = customizationId
        self.timeoutMs = timeoutMs
        self.filenameLabel = filenameLabel
        self.parentWindow = parentWindow
        self.filters = filters
        self.currentFilter = currentFilter
        self.choices = choices
    }
}

/// `fileImporter(isPresented:allowedContentTypes:allowsMultipleSelection:…)`.
public struct ImporterRequest: Sendable, Equatable {
    /// Non-empty; `public.folder` or `public.directory` makes a directory picker.
    public var allowedContentTypes: [String]
    public var allowsMultipleSelection: Bool
    /// Stands for the view's `isPresented` binding (see ``DialogError/alreadyPresented(presentationId:dialog:)``).
    public var presentationId: String?
    public var options: DialogOptions

    public init(
        allowedContentTypes: [String],
        allowsMultipleSelection: Bool = false,
        presentationId: String? = nil,
        options: DialogOptions = DialogOptions()
    ) {
        self.allowedContentTypes = allowedContentTypes
        self.allowsMultipleSelection = allowsMultipleSelection
        self.presentationId = presentationId
        self.options = options
    }
}

/// One document of an exporter.
public struct ExportDocument: Sendable, Equatable {
    /// The name to suggest, without or with an extension; nil uses the request's
    /// `defaultFilename`, then "Untitled".
    public var filename: String?
    /// The types this document can be written as, most preferred first.
    public var writableContentTypes: [String]
    /// The bytes, known now (a `FileDocument`); nil means the client produces them on demand
    /// once the destination and type are chosen (a `WritableDocument` snapshot).
    public var contents: ExportSource?

    public init(filename: String? = nil, writableContentTypes: [String], contents: ExportSource? = nil) {
        self.filename = filename
        self.writableContentTypes = writableContentTypes
        self.contents = contents
    }
}

/// Which of SwiftUI's two exporter forms a request uses; they resolve content types differently.
public enum ExportContentTypes: Sendable, Equatable {
    /// `fileExporter(…documents:contentType:…)` for `FileDocument`s: this type if a document can
    /// be written as it, else that document's first writable type.
    case contentType(String)
    /// `fileExporter(…documents:contentTypes:…)` for `WritableDocument`s: the user may pick any of
    /// these; empty means the documents' own `writableContentTypes`.
    case contentTypes([String])
}

/// `fileExporter`, both forms.
public struct ExporterRequest: Sendable, Equatable {
    /// Non-empty.
    public var documents: [ExportDocument]
    public var contentTypes: ExportContentTypes
    /// The name for documents without their own.
    public var defaultFilename: String?
    public var presentationId: String?
    public var options: DialogOptions
    /// The dialog only chooses where to save: the destination is checked exactly as for a
    /// write (its folder, an existing file, a name that is a folder, the type), and the dialog
    /// completes naming it, but nothing is written; the app writes it. What a save panel is
    /// for an app that writes its own files (xdg-desktop-portal's `SaveFile`). Its documents
    /// carry no contents. `options.urlEnabled` judges each destination too, by its name and
    /// path (``EntryFacts/init(destination:types:)``), as the rule the app's file must keep.
    public var destinationOnly: Bool
    /// The destination is a folder the documents are saved into under their own names, even
    /// when there is only one (xdg-desktop-portal's `SaveFiles`); several documents always are.
    public var savesIntoFolder: Bool

    public init(
        documents: [ExportDocument],
        contentTypes: ExportContentTypes = .contentTypes([]),
        defaultFilename: String? = nil,
        presentationId: String? = nil,
        options: DialogOptions = DialogOptions(),
        destinationOnly: Bool = false,
        savesIntoFolder: Bool = false
    ) {
        self.documents = documents
        self.contentTypes = contentTypes
        self.defaultFilename = defaultFilename
        self.presentationId = presentationId
        self.options = options
        self.destinationOnly = destinationOnly
        self.savesIntoFolder = savesIntoFolder
    }
}

/// One file a mover moves, as the server found it granted to the client: where it is, who it
/// is (so that another file put in its place is never moved instead), and the rights the
/// client has to it, which follow it.
public struct MoverFile: Sendable, Equatable {
    /// Absolute and normalised; a granted link's own path (it is moved as a link).
    public var path: FilePath
    /// The entry itself (`lstat`: a link's own identity).
    public var identity: FileIdentity
    public var birth: Int64?
    public var isDirectory: Bool
    public var isSymlink: Bool
    /// The client may only read it (an importer's pick): so it may after the move.
    public var readOnly: Bool

    public init(path: FilePath, identity: FileIdentity, birth: Int64?, isDirectory: Bool, isSymlink: Bool, readOnly: Bool) {
        self.path = path
        self.identity = identity
        self.birth = birth
        self.isDirectory = isDirectory
        self.isSymlink = isSymlink
        self.readOnly = readOnly
    }
}

/// `fileMover(isPresented:files:onCompletion:onCancellation:)`: the human chooses a folder
/// and the app's files are moved into it.
public struct MoverRequest: Sendable, Equatable {
    /// Non-empty, each granted to the client (the server checks that before it asks).
    public var files: [MoverFile]
    public var presentationId: String?
    public var options: DialogOptions

    public init(files: [MoverFile], presentationId: String? = nil, options: DialogOptions = DialogOptions()) {
        self.files = files
        self.presentationId = presentationId
        self.options = options
    }
}
