import WharfDialogs
import WharfFileManagers
import WharfFileWriting
import WharfSystem
import WharfTerminal

/// One dialog shown with a terminal file manager (``FileManagerPresenter``), on the dialog's own
/// thread: the tool run again and again until the dialog has ended. A turn runs the tool in
/// ``directory`` and reads what it chose; Wharf's own questions (is this the folder, the name
/// to save under, replace) come between turns, on the same terminal.
final class FileManagerDialog {
    let dialog: PresentedDialog
    let kind: FileManagerKind
    let program: FilePath
    let chooser: TerminalChooser
    let scratch: PrivateTemporaryDirectory
    let mode: FileManagerMode
    /// Where the tool opens next.
    var directory: FilePath
    /// The last refused pick and how many times in a row it came.
    var refused: (pick: [[UInt8]], times: Int)?
    /// The one file just refused: where the tool's cursor starts next time (lf, nnn).
    var reselect: FilePath?

    init(dialog: PresentedDialog, kind: FileManagerKind, program: FilePath, chooser: TerminalChooser,
         scratch: PrivateTemporaryDirectory, mode: FileManagerMode) {
        self.dialog = dialog
        self.kind = kind
        self.program = program
        self.chooser = chooser
        self.scratch = scratch
        self.mode = mode
        directory = dialog.directory
    }

    private var responder: DialogResponder { dialog.responder }

    /// What the tool shows to name the dialog: its title, else what it does (as the terminal
    /// picker says it), then its message; safe to print.
    private var heading: [String] {
        let verb = switch dialog.details {
        case .importer: mode == .folder ? "Choose a Folder" : "Open"
        case .exporter: "Save"
        case .mover: "Move to a Folder"
        }
        let title = dialog.title.flatMap { $0.isEmpty ? nil : TerminalText.escape($0) } ?? verb
        return [title] + (dialog.message.flatMap { $0.isEmpty ? nil : [TerminalText.escape($0)] } ?? [])
    }
    private static let outputName = "chosen"

    /// What happens after a turn of the tool.
    private enum Next {
        case again
        case ended
    }

    func loop() {
        while case .again = turn() {}
    }

    /// Runs the tool once and acts on what it gave.
    private func turn() -> Next {
        var entries: [FzfEntry] = []
        var input: [UInt8]?
        if kind == .fzf {
            do throws(DialogError) {
                (entries, input) = try fzfInput()
            } catch {
                return refuse([directory.bytes], because: "\(error)", reopenIn: dialog.directory)
            }
        }
        scratch.removeFile(Self.outputName)
        let arguments = FileManagerArguments.build(kind, mode: mode, directory: directory, output: scratch.file(Self.outputName),
                                                   heading: heading, shownFolder: TerminalText.escape(bytes: directory.bytes),
                                                   select: reselect)
        reselect = nil
        let environment = ProcessControl.environmentEntries(adding: FileManagerArguments.environment(for: kind, mode: mode, heading: heading))
        let run = chooser.run(program, arguments: arguments, directory: directory, input: input,
                              readsStandardOutput: kind == .fzf, keepsStandardError: kind.keepsStandardError, environment: environment)
        if run.cancelled { return .ended }   // the app ended the dialog
        if let failure = run.startFailure { return fail("cannot start \(kind.rawValue): \(failure)") }
        switch run.ending {
        case .exited(0):
            break
        case .exited(1) where kind == .fzf:
            return refuse([], because: "nothing matched what was typed", reopenIn: directory)
        case .exited(130) where kind == .fzf, .killed(signal: 2):
            return cancel()
        case .exited(1) where kind == .vifm && Self.lastLines(of: run.errors).isEmpty:
            return cancel()   // :cq; vifm says why when it fails
        case .exited(let code), .killed(let code):
            let how = run.ending == .exited(code) ? "exited with status \(code)" : "was killed by signal \(code)"
            let said = Self.lastLines(of: run.errors)
            return fail("\(kind.rawValue) \(how)" + (said.isEmpty ? (kind.keepsStandardError ? "" : " (what it said is on the terminal)") : ": \(said)"))
        case nil:
            return fail("\(kind.rawValue) ended in a way that cannot be told")
        }
        let written = kind == .fzf ? run.output : (scratch.read(Self.outputName) ?? [])
        let picked: [[UInt8]]
        switch FileManagerOutput.parse(written, as: kind.format(for: mode)) {
        case .nothing:
            return cancel()
        case .newlineInName:
            return refuse([written], because: "\(kind.rawValue) writes one path a line, so it cannot pick a name that holds a newline: rename the file, or choose it with --presenter fzf or vifm", reopenIn: directory)
        case .malformed(let what):
            return fail("\(kind.rawValue) wrote what Wharf cannot read as a choice (\(what))")
        case .indices(let indices):
            guard indices.allSatisfy(entries.indices.contains) else { return fail("fzf returned an entry Wharf did not give it") }
            let chosen = indices.map { entries[$0] }
            if chosen.count == 1, case .open(let folder) = chosen[0] {
                directory = folder
                return .again
            }
            if chosen.contains(where: { if case .open = $0 { true } else { false } }) {
                return refuse([], because: "choose files, or one folder to open", reopenIn: directory)
            }
            picked = chosen.map { entry in
                if case .choose(let path) = entry { return path.bytes }
                return directory.bytes
            }
        case .paths(let paths):
            picked = paths
        }
        if let first = picked.first { directory = kind == .fzf ? directory : FilePath(unchecked: first).directory }
        if kind.writesFolderOnEveryQuit(mode), let folder = picked.first {
            directory = FilePath(unchecked: folder)
            let question = "\r\n\(TerminalText.escape(dialog.title ?? "Choose a folder")): \(TerminalText.escape(bytes: folder))?\r\n"
                + "[Enter] choose it   [n] back to \(kind.rawValue)   [q] cancel "
            switch chooser.readKey(after: question) {
            case nil: return .ended
            case 10, 13, UInt8(ascii: "y"), UInt8(ascii: "Y"): break
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 27, 3, 4: return cancel()
            default: return .again
            }
        }
        switch dialog.details {
        case .importer:
            return accept(picked)
        case .exporter(let exporter):
            return save(into: picked, exporter)
        case .mover:
            return move(into: picked, resolution: nil)
        }
    }

    // MARK: Answers

    private func accept(_ picked: [[UInt8]]) -> Next {
        do throws(DialogError) {
            // A file manager shows none of the app's named filters: the pick may match any of
            // them, and the first it matches is reported as the one in force.
            if !dialog.namedFilters.isEmpty { try responder.selectFilter(nil) }
            try responder.choose(urls: picked.map { FileURL.from(path: FilePath(unchecked: $0)) })
            return .ended
        } catch {
            return refused(picked, error)
        }
    }

    /// An exporter: the tool chose the folder; one document's name is asked for here.
    private func save(into picked: [[UInt8]], _ exporter: PresentedDialog.Exporter) -> Next {
        guard picked.count == 1 else { return refuse(picked, because: "choose one folder to save in", reopenIn: directory) }
        let folder = FilePath(unchecked: picked[0])
        directory = folder
        if exporter.savesIntoFolder {
            return store(FileURL.from(path: folder), overwrite: false, pick: picked, names: exporter.filenames.map { Array($0.utf8) }, in: folder)
        }
        var suggested = Array((exporter.filename ?? exporter.filenames.first ?? "Untitled").utf8)
        while true {
            let prompt = "\r\n\(TerminalText.escape(exporter.filenameLabel ?? "Save as")) (in \(TerminalText.escape(bytes: folder.bytes)); Enter keeps the name, Esc cancels): "
            guard let typed = chooser.readLine(prompt: prompt, initial: suggested) else { return chooser.isCancelled ? .ended : cancel() }
            guard !typed.isEmpty, !typed.contains(UInt8(ascii: "/")), typed != [46], typed != [46, 46] else {
                try? chooser.terminal.write(Array("A file name is needed, without /.\r\n".utf8))
                continue
            }
            suggested = typed
            let target = folder.appending(typed)
            var overwrite = false
            if (try? FileStatus.ofLink(target)) != nil {
                let question = "\u{201C}\(TerminalText.escape(bytes: typed))\u{201D} already exists. Replace it? [y/N] "
                switch chooser.readKey(after: question) {
                case nil: return .ended
                case UInt8(ascii: "y"), UInt8(ascii: "Y"): overwrite = true
                default:
                    try? chooser.terminal.write([13, 10])
                    continue
                }
            }
            return store(FileURL.from(path: target), overwrite: overwrite, pick: [target.bytes], names: [typed], in: folder)
        }
    }

    /// A mover: the tool chose the folder; names already taken there are asked about here
    /// (replace, keep both, or back to the tool).
    private func move(into picked: [[UInt8]], resolution: MoveConflictResolution?) -> Next {
        guard picked.count == 1 else { return refuse(picked, because: "choose one folder to move the files to", reopenIn: directory) }
        let folder = FilePath(unchecked: picked[0])
        directory = folder
        do throws(DialogError) {
            try responder.move(folder: FileURL.from(path: folder), resolution: resolution, canAsk: true)
            return .ended
        } catch {
            guard case .nameConflict(_, let names) = error else { return refused(picked, error) }
            let listed = names.map { "\u{201C}" + TerminalText.escape(bytes: $0) + "\u{201D}" }.joined(separator: ", ")
            let question = "\r\n\(listed) already exist\(names.count == 1 ? "s" : "") in \(TerminalText.escape(bytes: folder.bytes)).\r\n"
                + "[r] replace   [k] keep both   [c] cancel: choose another folder "
            switch chooser.readKey(after: question) {
            case nil: return .ended
            case UInt8(ascii: "r"), UInt8(ascii: "R"): return move(into: picked, resolution: .replace)
            case UInt8(ascii: "k"), UInt8(ascii: "K"): return move(into: picked, resolution: .keepBoth)
            default: return .again
            }
        }
    }

    /// `save`, asking once whether to replace what exists (several documents into a folder).
    private func store(_ url: String, overwrite: Bool, pick: [[UInt8]], names: [[UInt8]], in folder: FilePath) -> Next {
        do throws(DialogError) {
            try responder.save(url: url, contentType: nil, overwrite: overwrite)
            return .ended
        } catch {
            guard case .fileExists = error, !overwrite else { return refused(pick, error) }
            let existing = names.filter { (try? FileStatus.ofLink(folder.appending($0))) != nil }
            let listed = existing.map { "\u{201C}" + TerminalText.escape(bytes: $0) + "\u{201D}" }.joined(separator: ", ")
            switch chooser.readKey(after: "\r\n\(listed.isEmpty ? "Some of the files" : listed) already exist\(existing.count == 1 ? "s" : ""). Replace? [y/N] ") {
            case nil: return .ended
            case UInt8(ascii: "y"), UInt8(ascii: "Y"): return store(url, overwrite: true, pick: pick, names: names, in: folder)
            default: return .again
            }
        }
    }

    private func refused(_ pick: [[UInt8]], _ error: DialogError) -> Next {
        if pick.count == 1, case .importer = dialog.details { reselect = FilePath(unchecked: pick[0]) }
        switch error {
        case .rejectedChoice(let url, let reason):
            let shown = FileURL.path(from: url).map { TerminalText.escape(bytes: $0.bytes) } ?? url
            return refuse(pick, because: "\(shown) cannot be chosen: \(reason)", reopenIn: directory)
        case .fileExists, .contentTypeNotOffered, .notAFileURL:
            return refuse(pick, because: "\(error)", reopenIn: directory)
        default:
            return .ended   // the dialog ended meanwhile (the app cancelled it)
        }
    }

    // MARK: Ways a turn ends

    /// Says why on the terminal and opens the tool again (in `folder`), unless the person
    /// cancels there, or the same pick was refused ``FileManagerPresenter/refusalLimit`` times.
    private func refuse(_ pick: [[UInt8]], because reason: String, reopenIn folder: FilePath) -> Next {
        let times = (refused.map { $0.pick == pick ? $0.times : 0 } ?? 0) + 1
        refused = (pick, times)
        if times >= FileManagerPresenter.refusalLimit {
            return fail("\(kind.rawValue) returned the same refused choice \(times) times in a row: \(reason)")
        }
        directory = folder
        switch chooser.readKey(after: "\r\nwharf: \(reason)\r\n[Enter] choose again   [q] cancel ") {
        case nil: return .ended
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 27, 3, 4: return cancel()
        default: return .again
        }
    }

    private func cancel() -> Next {
        try? responder.dismiss()
        return .ended
    }

    private func fail(_ message: String) -> Next {
        try? responder.fail(message)
        return .ended
    }

    static func lastLines(of errors: [UInt8], count: Int = 3) -> String {
        let lines = errors.split(separator: UInt8(ascii: "\n")).map { TerminalText.escape(bytes: Array($0)).trimmingCharacters() }
            .filter { !$0.isEmpty }
        return lines.suffix(count).joined(separator: " / ")
    }

    // MARK: fzf's list

    /// What one of fzf's records stands for.
    enum FzfEntry {
        case choose(FilePath)
        case open(FilePath)
        case chooseShownFolder
    }

    /// The entries of ``directory`` fzf may offer, listed through the dialog (so exactly those
    /// it allows), and fzf's input for them: in a folder dialog `./` (the folder shown) first,
    /// `../`, the folders to open; in a file dialog `../`, the folders, then the files that may
    /// be chosen.
    private func fzfInput() throws(DialogError) -> ([FzfEntry], [UInt8]) {
        var entries: [FzfEntry] = []
        var shown: [String] = []
        var cursor: String?
        var first = true
        repeat {
            let page = try responder.list(directory: directory.url, cursor: cursor, limit: 10_000)
            if first {
                first = false
                if mode == .folder {
                    entries.append(.chooseShownFolder)
                    shown.append("./")
                }
                if let parent = page.parent {
                    entries.append(.open(parent))
                    shown.append("../")
                }
            }
            for entry in page.entries {
                if entry.isDirectory {
                    entries.append(.open(entry.path))
                    shown.append(TerminalText.escape(bytes: entry.name) + "/")
                } else if mode != .folder && entry.enabled {
                    entries.append(.choose(entry.path))
                    shown.append(TerminalText.escape(bytes: entry.name))
                }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return (entries, FileManagerArguments.fzfRecords(shown))
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars = scalars.dropFirst() }
        while scalars.last?.isWhitespace == true { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
