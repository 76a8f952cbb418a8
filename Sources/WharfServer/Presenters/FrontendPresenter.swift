import WharfDialogs
import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// The client's own UI as the presenter: `presenter/show` when a dialog opens, `presenter/hide`
/// when the app side ends it. The client answers with `dialog/choose`, `dialog/dismiss` or
/// `dialog/fail`; the engine takes those only for dialogs this presenter (this session's, the
/// same object) shows.
final class FrontendPresenter: DialogPresenter {
    let connection: Connection

    init(connection: Connection) { self.connection = connection }

    var name: String { "frontend" }

    func show(_ dialog: PresentedDialog) {
        connection.send(notification: PresenterShowNotification.method, params: PresenterShowNotification(dialog).json)
    }

    func hide(_ id: DialogID) {
        connection.send(notification: PresenterHideNotification.method, params: PresenterHideNotification(dialogId: id.rawValue).json)
    }
}

extension PresenterShowNotification {
    init(_ dialog: PresentedDialog) {
        let importer = dialog.importer
        self.init(
            dialogId: dialog.id.rawValue,
            kind: dialog.kind.rawValue,
            title: dialog.title,
            message: dialog.message,
            confirmationLabel: dialog.confirmationLabel,
            allowedContentTypes: importer?.allowedContentTypes ?? [],
            allowsMultipleSelection: importer?.allowsMultipleSelection ?? false,
            filters: DialogFiltersInfo(globs: dialog.filters.globs, mimeTypes: dialog.filters.mimeTypes,
                                       directories: dialog.filters.directories, allowsAllFiles: dialog.filters.allowsAllFiles),
            directory: FileURL.from(path: dialog.directory),
            browserOptions: dialog.browserOptions.names,
            exporter: dialog.exporter.map { exporter in
                Exporter(filename: exporter.filename, filenames: exporter.filenames, contentTypes: exporter.contentTypes,
                         filenameLabel: exporter.filenameLabel, documentCount: Int64(exporter.documentCount),
                         contentTypeChoices: exporter.choices.map {
                             ContentTypeChoiceInfo(contentType: $0.contentType, description: $0.description, filenames: $0.filenames)
                         })
            },
            mover: dialog.mover.map { Mover(urls: $0.urls) },
            namedFilters: dialog.namedFilters.map { filter in
                NamedFilterInfo(name: filter.name, filters: DialogFiltersInfo(
                    globs: filter.shown.globs, mimeTypes: filter.shown.mimeTypes, directories: filter.shown.directories,
                    allowsAllFiles: filter.shown.allowsAllFiles))
            },
            currentFilter: Int64(dialog.currentFilter),
            choices: dialog.choices.map { choice in
                DialogChoiceParams(id: choice.id, label: choice.label,
                                   options: choice.options.map { DialogChoiceParams.Option(id: $0.id, label: $0.label) },
                                   initial: choice.initial)
            }
        )
    }
}
