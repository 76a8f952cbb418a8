import WharfSystem

import WharfFileWriting

/// Who shows a dialog to a human: the client's own UI (the server's frontend presenter), a
/// script (``ScriptPresenter``), later native desktop dialogs.
///
/// The engine calls both methods **with its lock held**, in order with the events it emits,
/// so a presenter that writes to the client keeps `presenter/show`, `presenter/hide` and the
/// dialog's notifications in order. In exchange, a presenter must return quickly and must not
/// call back into the engine from inside these methods (answer later, from another thread, as
/// ``ScriptPresenter`` does through the scheduler).
public protocol DialogPresenter: Sendable {
    /// Show the dialog. Answers come back through ``PresentedDialog/responder`` (or, for the
    /// frontend, through the server's `dialog/choose`, `dialog/dismiss`, … methods).
    func show(_ dialog: PresentedDialog)
    /// The dialog ended from the app's side (the client's `cancel`, a timeout, a disconnect)
    /// while the presenter was still showing it: take it down. Not called for dialogs the
    /// presenter itself answered.
    func hide(_ id: DialogID)
}

/// Everything a presenter needs to draw a dialog: the configuration snapshot taken at
/// `present` time, the directory to open in, and a way to answer.
public struct PresentedDialog: Sendable {
    public var id: DialogID
    public var client: ClientID
    public var kind: DialogKind
    public var title: String?
    public var message: String?
    public var confirmationLabel: String?
    /// Importer: the types the user may pick.
    public var allowedContentTypes: [String]
    /// Importer: more than one file may be chosen.
    public var allowsMultipleSelection: Bool
    /// Filters for a frontend's own file view, for the allowed (importer) or offered (exporter) types.
    public var filters: DialogFilters
    /// The directory the dialog opens in (remembered, default, or home).
    public var directory: FilePath
    public var browserOptions: BrowserOptions
    /// Exporter: the suggested name, with the preferred extension of the default type, when there
    /// is exactly one document.
    public var filename: String?
    /// Exporter: the name each document will be written under (for the default type).
    public var filenames: [String]
    /// Exporter: the content types the user may pick from; the first is the default.
    public var contentTypes: [String]
    /// Exporter: `fileExporterFilenameLabel`.
    public var filenameLabel: String?
    /// Exporter: how many documents are saved.
    public var documentCount: Int
    /// Answers the dialog on the human's behalf.
    public var responder: DialogResponder
}

/// A presenter's way to answer the dialog it shows: the same operations the server's
/// `dialog/…` methods call, bound to one dialog of one client.
public struct DialogResponder: Sendable {
    let engine: DialogEngine
    public let client: ClientID
    public let id: DialogID

    /// See ``DialogEngine/choose(client:id:urls:)``.
    public func choose(urls: [String]) throws(DialogError) {
        try engine.choose(client: client, id: id, urls: urls)
    }

    /// See ``DialogEngine/save(client:id:url:contentType:overwrite:)``.
    public func save(url: String?, contentType: String?, overwrite: Bool) throws(DialogError) {
        try engine.save(client: client, id: id, url: url, contentType: contentType, overwrite: overwrite)
    }

    /// See ``DialogEngine/dismiss(client:id:)``.
    public func dismiss() throws(DialogError) {
        try engine.dismiss(client: client, id: id)
    }

    /// See ``DialogEngine/list(client:id:directory:cursor:limit:)``.
    public func list(directory: String? = nil, cursor: String? = nil, limit: Int? = nil) throws(DialogError) -> DirectoryListing {
        try engine.list(client: client, id: id, directory: directory, cursor: cursor, limit: limit)
    }

    /// See ``DialogEngine/presenterFailed(client:id:message:)``.
    @discardableResult
    public func fail(_ message: String) -> Bool {
        engine.presenterFailed(client: client, id: id, message: message)
    }
}
