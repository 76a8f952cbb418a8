import WharfFileWriting
import WharfSystem

/// Who shows a dialog to a human: the client's own UI (the server's frontend presenter), a
/// script (``ScriptPresenter``), the desktop's own dialogs.
///
/// The engine calls both methods with its lock released, through the owning client's outbox,
/// in order with the dialog's events: a presenter that writes to the client keeps
/// `presenter/show`, `presenter/hide` and the dialog's notifications in order. A presenter must
/// still return quickly (answer later, from another thread, as ``ScriptPresenter`` does through
/// the scheduler): a client's later events wait behind it.
public protocol DialogPresenter: Sendable {
    /// What the protocol calls this presenter (`frontend`, `script`, `portal`, `zenity`,
    /// `kdialog`), for `initialize` and for messages.
    var name: String { get }
    /// Show the dialog. Answers come back through ``PresentedDialog/responder``.
    func show(_ dialog: PresentedDialog)
    /// The dialog ended from the app's side (the client's `cancel`, a timeout, a disconnect)
    /// while the presenter was still showing it: take it down. Not called for dialogs the
    /// presenter itself answered.
    func hide(_ id: DialogID)
}

/// Everything a presenter needs to draw a dialog: the configuration snapshot taken at
/// `present` time, the directory to open in, and a way to answer.
///
/// A class, not a struct: a presenter keeps the dialog it shows (the script presenter queues
/// them, the desktop presenters hold one per open dialog) and passes it between threads, and a
/// struct of a dozen strings and arrays costs a dozen reference-count operations at each copy.
/// Nothing in it changes after `present`.
public final class PresentedDialog: Sendable {
    public let id: DialogID
    public let client: ClientID
    public let title: String?
    public let message: String?
    public let confirmationLabel: String?
    /// Filters for a file view, for the allowed (importer) or offered (exporter) types.
    public let filters: DialogFilters
    /// The directory the dialog opens in (remembered, default, or home).
    public let directory: FilePath
    public let browserOptions: BrowserOptions
    /// The window the dialog is modal to, in the portal's notation (`x11:<hex XID>`,
    /// `wayland:<handle>`), as the client gave it.
    public let parentWindow: String?
    /// What only one kind of dialog has.
    public let details: Details
    /// The named filters the person switches between (``DialogOptions/filters``), and the index
    /// of the one selected at first; empty for none.
    public let namedFilters: [PresentedFilter]
    public let currentFilter: Int
    /// The choices to show beside the file list, each at its initial value.
    public let choices: [DialogChoice]
    /// Answers the dialog on the human's behalf.
    public let responder: DialogResponder

    init(
        id: DialogID, client: ClientID, title: String?, message: String?, confirmationLabel: String?,
        filters: DialogFilters, directory: FilePath, browserOptions: BrowserOptions, parentWindow: String?,
        details: Details, responder: DialogResponder,
        namedFilters: [PresentedFilter] = [], currentFilter: Int = 0, choices: [DialogChoice] = []
    ) {
        self.namedFilters = namedFilters
        self.currentFilter = currentFilter
        self.choices = choices
        self.id = id
        self.client = client
        self.title = title
        self.message = message
        self.confirmationLabel = confirmationLabel
        self.filters = filters
        self.directory = directory
        self.browserOptions = browserOptions
        self.parentWindow = parentWindow
        self.details = details
        self.responder = responder
    }

    /// A dialog as its request's options describe it; `details` is what only its kind has.
    convenience init(
        id: DialogID, client: ClientID, options: DialogOptions, filters: DialogFilters, directory: FilePath,
        types: any ContentTypeOracle, details: Details, responder: DialogResponder
    ) {
        self.init(
            id: id, client: client, title: options.title, message: options.message,
            confirmationLabel: options.confirmationLabel, filters: filters, directory: directory,
            browserOptions: options.browserOptions, parentWindow: options.parentWindow, details: details,
            responder: responder,
            namedFilters: options.filters.map { PresentedFilter(name: $0.name, shown: $0.shown(types: types)) },
            currentFilter: options.currentFilter, choices: options.choices)
    }

    public enum Details: Sendable {
        case importer(Importer)
        case exporter(Exporter)
        case mover(Mover)
    }

    /// What a mover moves: shown to the human, whose choice of a folder is the consent to move
    /// these files there.
    public struct Mover: Sendable, Equatable {
        /// The files, in the order the app gave them (where they are now).
        public var files: [FilePath]

        /// The files as `file:` URLs.
        public var urls: [String] { files.map(\.url) }

        public init(files: [FilePath]) { self.files = files }
    }

    /// What an importer asks for.
    public struct Importer: Sendable, Equatable {
        /// The types the user may pick.
        public var allowedContentTypes: [String]
        /// More than one file may be chosen.
        public var allowsMultipleSelection: Bool

        public init(allowedContentTypes: [String], allowsMultipleSelection: Bool) {
            self.allowedContentTypes = allowedContentTypes
            self.allowsMultipleSelection = allowsMultipleSelection
        }
    }

    /// What an exporter offers.
    public struct Exporter: Sendable, Equatable {
        /// The suggested name, with the preferred extension of the default type, when there is
        /// exactly one document.
        public var filename: String?
        /// The name each document will be written under (for the default type).
        public var filenames: [String]
        /// The content types the user may pick from; the first is the default.
        public var contentTypes: [String]
        /// `fileExporterFilenameLabel`.
        public var filenameLabel: String?
        /// One for each of `contentTypes`, in order: what a type chooser shows for it and the
        /// names the documents take when the human picks it, so that a frontend changes the
        /// name as the type changes without asking the server.
        public var choices: [TypeChoice]

        /// The person chooses a folder the documents are saved into, not a file's name: always
        /// for several documents, and for one when the app asked (``ExporterRequest/savesIntoFolder``).
        public var savesIntoFolder: Bool

        /// How many documents are saved.
        public var documentCount: Int { filenames.count }

        public init(filename: String?, filenames: [String], contentTypes: [String], filenameLabel: String?,
                    choices: [TypeChoice] = [], savesIntoFolder: Bool = false) {
            self.savesIntoFolder = savesIntoFolder || filenames.count > 1
            self.filename = filename
            self.filenames = filenames
            self.contentTypes = contentTypes
            self.filenameLabel = filenameLabel
            self.choices = choices
        }
    }

    /// One content type an exporter offers, as a type chooser shows it.
    public struct TypeChoice: Sendable, Equatable {
        public var contentType: String
        /// The type's description, if it has one.
        public var description: String?
        /// The name each document is written under when this type is picked: for one document
        /// the name to suggest, for several what a save with this type into a folder writes.
        public var filenames: [String]

        public init(contentType: String, description: String?, filenames: [String]) {
            self.contentType = contentType
            self.description = description
            self.filenames = filenames
        }
    }

    public var kind: DialogKind {
        switch details {
        case .importer: .importer
        case .exporter: .exporter
        case .mover: .mover
        }
    }

    public var importer: Importer? {
        if case .importer(let importer) = details { return importer }
        return nil
    }

    public var exporter: Exporter? {
        if case .exporter(let exporter) = details { return exporter }
        return nil
    }

    public var mover: Mover? {
        if case .mover(let mover) = details { return mover }
        return nil
    }
}

/// A presenter's way to answer the dialog it shows: the same operations the server's
/// `dialog/…` methods call, bound to one dialog of one client. Holding one is what makes a
/// presenter the presenter of that dialog: the server answers `dialog/choose` and its siblings
/// only through the responders its presenter was given.
public struct DialogResponder: Sendable {
    let engine: DialogEngine
    public let client: ClientID
    public let id: DialogID

    /// See ``DialogEngine/choose(client:id:urls:accepted:)``.
    public func choose(urls: [String], accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try engine.choose(client: client, id: id, urls: urls, accepted: accepted)
    }

    /// See ``DialogEngine/save(client:id:url:contentType:overwrite:accepted:)``.
    public func save(url: String?, contentType: String?, overwrite: Bool, accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try engine.save(client: client, id: id, url: url, contentType: contentType, overwrite: overwrite, accepted: accepted)
    }

    /// See ``DialogEngine/move(client:id:folder:resolution:canAsk:accepted:)``.
    public func move(folder: String, resolution: MoveConflictResolution?, canAsk: Bool,
                     accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try engine.move(client: client, id: id, folder: folder, resolution: resolution, canAsk: canAsk, accepted: accepted)
    }

    /// Which kind of dialog this is, while it is open.
    public func kind() throws(DialogError) -> DialogKind {
        try engine.kind(client: client, id: id)
    }

    /// See ``DialogEngine/dismiss(client:id:accepted:)``.
    public func dismiss(accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try engine.dismiss(client: client, id: id, accepted: accepted)
    }

    /// See ``DialogEngine/list(client:id:directory:cursor:limit:showHidden:)``.
    public func list(
        directory: String? = nil, cursor: String? = nil, limit: Int? = nil, showHidden: Bool? = nil
    ) throws(DialogError) -> DirectoryListing {
        try engine.list(client: client, id: id, directory: directory, cursor: cursor, limit: limit, showHidden: showHidden)
    }

    /// See ``DialogEngine/selectFilter(client:id:index:)``.
    public func selectFilter(_ index: Int?) throws(DialogError) {
        try engine.selectFilter(client: client, id: id, index: index)
    }

    /// See ``DialogEngine/setChoice(client:id:choiceId:value:)``.
    public func setChoice(_ choiceId: String, to value: String) throws(DialogError) {
        try engine.setChoice(client: client, id: id, choiceId: choiceId, value: value)
    }

    /// See ``DialogEngine/fail(client:id:message:accepted:)``.
    public func fail(_ message: String, accepted: (@Sendable () -> Void)? = nil) throws(DialogError) {
        try engine.fail(client: client, id: id, message: message, accepted: accepted)
    }
}
