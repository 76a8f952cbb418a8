import WharfContentTypes
import WharfDesktopDialogs
import WharfDialogs
import WharfSystem

/// The desktop's own file dialog (the portal's, zenity's or kdialog's) as a presenter: the
/// dialog is shown, and what the human picks there is answered through the dialog's responder,
/// so it meets exactly the checks a frontend's `dialog/choose` meets (types, `urlEnabled`,
/// browser options, grants, the remembered folder).
///
/// A desktop dialog's filters are only advice (a person can type any name), and it has no
/// place for an error: a pick the engine refuses opens the dialog again, saying why in its
/// title. Saving several documents into a folder that holds some of their names asks whether
/// to replace them, naming them (zenity's and kdialog's folder dialogs asked nobody about the
/// names in it); the human replaces them or chooses another folder. The same pick refused
/// ``refusalLimit`` times in a row ends the dialog as failed, so a dialog that answers without
/// a human cannot loop for ever. The person cancelling ends the dialog as cancelled by the
/// user; the app ending it (`cancel`, a timeout, a disconnect) takes the real window down.
final class DesktopDialogPresenter: DialogPresenter {
    private let desktop: any DesktopPresenter
    /// The client's content types, for naming filters (nil once the client is gone).
    private let types: @Sendable () -> ContentTypeScope?
    /// The desktop dialog (or question) on screen for each dialog still shown.
    private let shown = Locked<[DialogID: DesktopDialogSession]>([:])
    /// Dialogs the app ended while their desktop dialog was being opened.
    private let hidden = Locked<Set<DialogID>>([])
    /// Each dialog's last refused pick and how many times in a row it came.
    private let refused = Locked<[DialogID: (paths: [[UInt8]], times: Int)]>([:])
    /// How many times in a row the same pick may be refused: the last refusal fails the dialog.
    static let refusalLimit = 5

    init(_ desktop: any DesktopPresenter, types: @escaping @Sendable () -> ContentTypeScope?) {
        self.desktop = desktop
        self.types = types
    }

    var name: String { desktop.kind.rawValue }

    func show(_ dialog: PresentedDialog) {
        open(dialog, note: nil)
    }

    func hide(_ id: DialogID) {
        refused.withValue { _ = $0.removeValue(forKey: id) }
        let session = shown.withValue { $0.removeValue(forKey: id) }
        if let session {
            session.cancel(.caller)
        } else {
            hidden.withValue { _ = $0.insert(id) }
        }
    }

    /// Shows the desktop dialog for `dialog`; `note` says why it is shown again.
    private func open(_ dialog: PresentedDialog, note: String?) {
        let request = DesktopDialogRequest(dialog, note: note, types: types())
        let session = desktop.present(request) { [self] result in
            shown.withValue { _ = $0.removeValue(forKey: dialog.id) }
            answer(dialog, result)
        }
        track(session, of: dialog.id)
    }

    /// Keeps `session` as what is on screen for `id`, or takes it down at once when the app
    /// ended the dialog while it was being opened.
    private func track(_ session: DesktopDialogSession, of id: DialogID) {
        let alreadyHidden = shown.withValue { shown -> Bool in
            if hidden.withValue({ $0.remove(id) != nil }) { return true }
            if session.result == nil { shown[id] = session }
            return false
        }
        if alreadyHidden { session.cancel(.caller) }
    }

    /// Hands what happened on screen to the engine.
    private func answer(_ dialog: PresentedDialog, _ result: DesktopDialogResult) {
        let responder = dialog.responder
        switch result {
        case .chosen(let choice):
            do throws(DialogError) {
                try accept(choice, for: dialog)
                refused.withValue { _ = $0.removeValue(forKey: dialog.id) }
            } catch {
                refuse(choice.paths, of: dialog, error) {
                    // Several documents into a folder: nobody was asked about the names in it.
                    if case .fileExists = error, let folder = choice.folder {
                        askToReplace(dialog, in: folder)
                    } else {
                        open(dialog, note: "\(error)")
                    }
                }
            }
        case .cancelled:
            // The person cancelled; or the app ended the dialog (then it has ended already, and
            // this is refused as such).
            refused.withValue { _ = $0.removeValue(forKey: dialog.id) }
            try? responder.dismiss()
        case .failed(let reason):
            refused.withValue { _ = $0.removeValue(forKey: dialog.id) }
            try? responder.fail("\(desktop.kind.displayName) failed: \(reason)")
        }
    }

    /// The engine refused `paths`: `retry` (the dialog again, or the question), unless the
    /// dialog has ended meanwhile, or this is the ``refusalLimit``th refusal of the same pick
    /// in a row, which no person keeps making: then the dialog fails, saying why.
    private func refuse(_ paths: [[UInt8]], of dialog: PresentedDialog, _ error: DialogError, retry: () -> Void) {
        switch error {
        case .rejectedChoice, .fileExists, .contentTypeNotOffered, .notAFileURL:
            break
        default:
            // The dialog ended meanwhile (the app cancelled it): nothing to tell.
            refused.withValue { _ = $0.removeValue(forKey: dialog.id) }
            return
        }
        let times = refused.withValue { refused -> Int in
            let times = refused[dialog.id].map { $0.paths == paths ? $0.times + 1 : 1 } ?? 1
            refused[dialog.id] = times < Self.refusalLimit ? (paths, times) : nil
            return times
        }
        guard times >= Self.refusalLimit else { return retry() }
        try? dialog.responder.fail("\(desktop.kind.displayName) returned the same refused choice \(times) times in a row: \(error)")
    }

    private func accept(_ choice: DesktopDialogChoice, for dialog: PresentedDialog) throws(DialogError) {
        let urls = choice.paths.map { FileURL.from(path: FilePath(unchecked: $0)) }
        switch dialog.details {
        case .importer:
            if !dialog.namedFilters.isEmpty {
                // The portal says which filter the person had selected; zenity and kdialog do
                // not, so any of them may be matched, and the first the picks match is reported.
                let selected = choice.selectedFilter.flatMap { dialog.namedFilters.indices.contains($0) ? $0 : nil }
                try dialog.responder.selectFilter(selected)
            }
            try dialog.responder.choose(urls: urls)
        case .exporter(let exporter):
            // Several documents: the person chose the folder they go in.
            let destination = exporter.savesIntoFolder ? choice.folder.map { FileURL.from(path: FilePath(unchecked: $0)) } : urls.first
            let contentType = choice.selectedFilter.flatMap { exporter.contentTypes.indices.contains($0) ? exporter.contentTypes[$0] : nil }
            // The desktop dialog asked "Replace?" itself when it says so.
            try dialog.responder.save(url: destination, contentType: contentType, overwrite: choice.overwriteConfirmed)
        case .mover:
            // A folder dialog asks nothing about the names in the folder: a taken one ends the
            // dialog failed with nameConflict, naming it, and nothing is moved.
            guard let folder = urls.first else { throw .notAFileURL("") }
            try dialog.responder.move(folder: folder, resolution: nil, canAsk: false)
        }
    }

    /// Several documents, and `folder` holds some of their names: asks whether to replace
    /// those, naming them, then saves over them or shows the folder dialog again. The portal
    /// has no question to ask with: its dialog comes back saying which names exist.
    private func askToReplace(_ dialog: PresentedDialog, in folder: [UInt8]) {
        let existing = (dialog.exporter?.filenames ?? []).map { Array($0.utf8) }.filter { name in
            (try? FileStatus.ofLink(FilePath(unchecked: folder).appending(name))) != nil
        }
        let folderURL = FileURL.from(path: FilePath(unchecked: folder))
        let names = existing.map { "\u{201C}" + String(decoding: $0, as: UTF8.self) + "\u{201D}" }.joined(separator: ", ")
        let which = existing.isEmpty ? "some of the files" : names
        let note = which + (existing.count == 1 ? " already exists" : " already exist") + " in \(folderURL): choose another folder"
        let question = DesktopReplaceQuestion(title: dialog.title ?? "Save", folder: folder, names: existing,
                                              parentWindow: dialog.parentWindow ?? "")
        let session = existing.isEmpty ? nil : desktop.askToReplace(question) { [self] result in
            shown.withValue { _ = $0.removeValue(forKey: dialog.id) }
            switch result {
            case .chosen:
                do throws(DialogError) {
                    try dialog.responder.save(url: folderURL, contentType: nil, overwrite: true)
                    refused.withValue { _ = $0.removeValue(forKey: dialog.id) }
                } catch {
                    refuse([folder], of: dialog, error) { open(dialog, note: "\(error)") }
                }
            case .cancelled(.user):
                open(dialog, note: note)   // Choose Another Folder, Escape, the window closed
            case .cancelled, .failed:
                answer(dialog, result)
            }
        }
        guard let session else { return open(dialog, note: note) }
        track(session, of: dialog.id)
    }
}

extension DesktopDialogRequest {
    /// The desktop's version of `dialog`: an open dialog (of folders, for a folder picker and a
    /// mover), a save dialog, or, for several documents, a folder to save them in; filters named
    /// for the types.
    init(_ dialog: PresentedDialog, note: String?, types: ContentTypeScope?) {
        func describe(_ identifier: String) -> String { types?.describe(identifier)?.description ?? identifier }
        let kind: Kind
        var filters: [DesktopDialogFilter] = []
        var title = dialog.title
        switch dialog.details {
        case .importer(let importer):
            let folders = !importer.allowedContentTypes.isEmpty && importer.allowedContentTypes.allSatisfy {
                types?.conforms($0, to: "public.directory") ?? false
            }
            kind = .open(multiple: importer.allowsMultipleSelection, directory: folders)
            title = title ?? (folders ? "Choose a Folder" : "Open")
            let patterns = dialog.filters.globs.map(DesktopDialogFilter.Pattern.glob) + dialog.filters.mimeTypes.map(DesktopDialogFilter.Pattern.mime)
            if !folders && !dialog.namedFilters.isEmpty {
                // The app's named filters, in order (a desktop dialog's selected filter is an
                // index into them), the one selected at first said so.
                filters = dialog.namedFilters.map { filter in
                    let shown = filter.shown
                    let patterns: [DesktopDialogFilter.Pattern] = shown.allowsAllFiles ? [.glob("*")]
                        : shown.globs.map(DesktopDialogFilter.Pattern.glob) + shown.mimeTypes.map(DesktopDialogFilter.Pattern.mime)
                    return DesktopDialogFilter(name: filter.name, patterns: patterns)
                }
            } else if !folders && !patterns.isEmpty {
                filters.append(DesktopDialogFilter(name: importer.allowedContentTypes.map(describe).joined(separator: ", "), patterns: patterns))
            }
        case .exporter(let exporter):
            if exporter.savesIntoFolder {
                kind = .saveFiles(files: exporter.filenames.map { Array($0.utf8) })
            } else {
                kind = .save(currentName: Array((exporter.filename ?? exporter.filenames.first ?? "").utf8), currentFile: nil)
            }
            title = title ?? "Save"
            // One filter per type the person may save as; the one selected says which.
            for type in exporter.contentTypes {
                let typeFilters = types?.filters(for: [type])
                let patterns = (typeFilters?.allowsAllFiles ?? true) ? [.glob("*")]
                    : (typeFilters?.globs ?? []).map(DesktopDialogFilter.Pattern.glob) + (typeFilters?.mimeTypes ?? []).map(DesktopDialogFilter.Pattern.mime)
                filters.append(DesktopDialogFilter(name: describe(type), patterns: patterns))
            }
        case .mover(let mover):
            // The folder mode, with the confirmation label as the portal's accept label; the
            // title says what is moved, since a folder dialog has nowhere else to list it.
            kind = .open(multiple: false, directory: true)
            let names = mover.files.map { String(decoding: $0.lastComponent, as: UTF8.self) }
            let what = names.count == 1 ? "\u{201C}\(names[0])\u{201D}" : "\(names.count) items"
            title = title ?? "Move \(what) to"
        }
        let message = [dialog.message, note].compactMap { $0 }.joined(separator: " — ")
        self.init(
            kind: kind, title: title ?? "", message: message.isEmpty ? nil : message,
            acceptLabel: dialog.confirmationLabel, modal: true, parentWindow: dialog.parentWindow ?? "",
            filters: filters, currentFilter: filters.isEmpty ? nil : (filters.indices.contains(dialog.currentFilter) && dialog.importer != nil ? dialog.currentFilter : 0),
            currentFolder: dialog.directory.bytes)
    }
}
