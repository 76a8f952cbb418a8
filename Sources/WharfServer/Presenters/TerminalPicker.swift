import WharfContentTypes
import WharfDialogs
import WharfSystem
import WharfTerminal

/// One dialog drawn on the terminal, from the first frame to its end: the folder's entries
/// (paged from the engine as `dialog/list` pages them, so a huge folder shows its first screen
/// at once), the keys a person presses, and every choice answered through the dialog's
/// responder, so it meets exactly the checks `dialog/choose` meets. A refused choice says why
/// on the status line and the picker stays open.
///
/// Keys and looks follow the Neovim picker (clients/nvim): folders first, entries that cannot
/// be chosen dimmed, `/` filters, `Tab` marks, `-` up, `~` home, `.` hidden files, `Enter`
/// opens or chooses, `?` the keys, `q`/Escape cancels; `t` switches the type (or the app's
/// named filter), `c` shows the app's choices.
///
/// Runs on its own thread (never the read loop, never under the engine's lock).
///
/// `@unchecked Sendable`: its folder and screen state belong to that thread; the only other
/// thread that touches the picker is the app ending the dialog, through ``stop()``, which
/// reaches only `stopped` (a `Locked`) and the session (which has its own lock).
final class TerminalPicker: @unchecked Sendable {
    let dialog: PresentedDialog
    let session: TerminalSession
    let types: ContentTypeScope?
    let environment: [String: String]
    /// Set when the app ended the dialog: the picker stops without answering.
    private let stopped = Locked(false)

    // MARK: The folder shown
    var directory: FilePath
    var parent: FilePath?
    var folderChoice: FolderChoice?
    var entries: [DirectoryEntry] = []
    var nextCursor: String?
    var showHidden: Bool
    var listingProblem: String?
    /// The first page is being read (the first frame says so).
    var isListing = false

    // MARK: What the person sees and does
    enum Mode: Equatable {
        case browse
        case filtering
        case naming
        case replacing(names: [[UInt8]], folder: Bool)
        /// A mover's folder already holds these names: replace them, keep both, or not there.
        case resolving(names: [[UInt8]], folder: FilePath)
        case typeMenu(selection: Int)
        /// The app's choices (``PresentedDialog/choices``): check boxes and option lists.
        case choiceMenu(selection: Int)
        case help
    }
    var mode = Mode.browse
    /// The filter typed after `/`, as bytes (matched case-insensitively, `*` and `?` as in a glob).
    var filter: [UInt8] = []
    /// Indices into ``entries`` that pass the filter and the type, in listing order.
    var visible: [Int] = []
    /// The row the cursor is on (0 is the action row, when there is one) and the first row shown.
    var cursor = 0
    var top = 0
    /// Marked paths (`Tab`), in the order they were marked.
    var marks: [FilePath] = []
    /// A message for the status line until the next key: why a choice was refused.
    var notice: String?
    /// The type menu's choice: for an importer 0 is every allowed type, then each on its own;
    /// for an exporter, the index into its content types.
    var typeIndex = 0
    /// An exporter's name field (bytes: a chosen file's name need not be UTF-8).
    var name: [UInt8] = []
    /// Each of the dialog's choices' values, as the person set them.
    var choiceValues: [String]

    static let firstPage = 200
    static let laterPage = 10_000

    init(dialog: PresentedDialog, session: TerminalSession, types: ContentTypeScope?, environment: [String: String]) {
        self.dialog = dialog
        self.session = session
        self.types = types
        self.environment = environment
        directory = dialog.directory
        choiceValues = dialog.choices.map(\.initial)
        if dialog.importer != nil && !dialog.namedFilters.isEmpty { typeIndex = dialog.currentFilter }
        showHidden = dialog.browserOptions.contains(.includeHiddenFiles)
        let allowed = dialog.importer?.allowedContentTypes ?? []
        // A mover's person chooses the folder the files go to.
        isFolderPicker = dialog.mover != nil || (!allowed.isEmpty && allowed.allSatisfy { types?.conforms($0, to: "public.directory") ?? false })
        if let exporter = dialog.exporter {
            name = Array((exporter.filename ?? exporter.filenames.first ?? "Untitled").utf8)
        }
    }

    /// A mover, or an importer of folders only (as the desktop presenters judge it):
    /// `public.item` lets folders be chosen too, but is a file picker.
    let isFolderPicker: Bool
    var allowsMultiple: Bool { dialog.importer?.allowsMultipleSelection ?? false }
    var canMark: Bool { dialog.importer != nil && (allowsMultiple || isFolderPicker) }

    /// The app ended the dialog: stop drawing and return without answering.
    func stop() {
        stopped.withValue { $0 = true }
        session.leave()
        session.wake()
    }

    var isStopped: Bool { stopped.withValue { $0 } }

    // MARK: Running

    /// Shows the dialog until it ends: answered through the responder, or stopped by the app.
    func run() {
        // Something on screen at once, while the engine reads the folder.
        isListing = true
        draw()
        isListing = false
        list(directory, showHidden: showHidden)
        while !isStopped {
            draw()
            // Pages still to fetch: look for keys without waiting, fetch one between them.
            let events = session.events(timeoutMilliseconds: nextCursor == nil ? nil : 0)
            if events.isEmpty {
                if nextCursor != nil { fetchNextPage() }
                continue
            }
            for event in events {
                if isStopped { return }
                switch event {
                case .key(let key):
                    if handle(key) == .ended { return }
                case .resized, .woken:
                    break
                case .hungUp:
                    _ = end { responder, accepted throws(DialogError) in try responder.dismiss(accepted: accepted) }
                    return
                }
            }
        }
    }

    enum Outcome { case open, ended }

    /// Ends the dialog through the responder with `answer`; the terminal is given back before
    /// the app hears of it (`accepted` comes first, in the client's order), so a `wharf pick`
    /// prints on the normal screen. Nil when the dialog ended; the engine's refusal otherwise,
    /// with the notice saying why (the picker stays open).
    func end(_ answer: (DialogResponder, @escaping @Sendable () -> Void) throws(DialogError) -> Void) -> DialogError? {
        let session = self.session
        do throws(DialogError) {
            try answer(dialog.responder) { session.leave() }
            return nil
        } catch {
            switch error {
            case .rejectedChoice(let url, let reason):
                let shown = FileURL.path(from: url).map { TerminalText.escape(bytes: $0.lastComponent) } ?? url
                notice = "\(shown) cannot be chosen: \(reason)"
                return error
            case .nameConflict:
                // Asked about by the caller (a mover's Replace / Keep both / Cancel).
                return error
            case .fileExists, .contentTypeNotOffered, .notAFileURL, .invalidArgument, .cannotList:
                notice = error.description
                return error
            default:
                // The dialog ended meanwhile (the app cancelled it, it timed out).
                session.leave()
                return nil
            }
        }
    }

    // MARK: Listing

    /// Lists `folder` afresh (its first page), keeping the cursor at the top.
    func list(_ folder: FilePath, showHidden: Bool) {
        do throws(DialogError) {
            let page = try dialog.responder.list(directory: FileURL.from(path: folder), limit: Self.firstPage, showHidden: showHidden)
            directory = page.directory
            parent = page.parent
            folderChoice = page.folderChoice
            entries = page.entries
            nextCursor = page.nextCursor
            self.showHidden = showHidden
            listingProblem = nil
            marks.removeAll { _ in !allowsMultiple && !isFolderPicker }
            filter = []
            if mode == .filtering { mode = .browse }
            refilter()
            cursor = 0
            top = 0
        } catch {
            switch error {
            case .cannotList, .rejectedChoice, .invalidArgument:
                notice = error.description
            default:
                stop()
            }
        }
    }

    func fetchNextPage() {
        guard let cursorToken = nextCursor else { return }
        do throws(DialogError) {
            let page = try dialog.responder.list(cursor: cursorToken, limit: Self.laterPage)
            let start = entries.count
            entries += page.entries
            nextCursor = page.nextCursor
            appendVisible(from: start)
        } catch {
            nextCursor = nil
            switch error {
            case .cannotList, .invalidCursor:
                listingProblem = error.description
            default:
                stop()
            }
        }
    }

    /// Recomputes what the filter and the type menu let through, keeping the cursor on the
    /// same entry when it still shows. `narrowing`: the filter only grew longer (a substring
    /// typed on), so only what showed can still show.
    func refilter(narrowing: Bool = false) {
        let row = cursor - actionRows
        let current = visible.indices.contains(row) ? visible[row] : nil
        if narrowing && !filter.contains(UInt8(ascii: "*")) && !filter.contains(UInt8(ascii: "?")) {
            let pattern = NameFilter(filter)
            entries.withUnsafeBufferPointer { all in visible.removeAll { !pattern.matches(all[$0].name) } }
        } else {
            visible = []
            appendVisible(from: 0)
        }
        if let current, let row = Self.position(of: current, in: visible) {
            cursor = row + actionRows
        } else {
            // The entry under the cursor went: the first that matches.
            cursor = visible.isEmpty ? 0 : actionRows
        }
    }

    /// Adds the entries from `start` on that pass the filter and the type. Reads the entries in
    /// place: copying each (its name, path and type strings) cost more than matching it.
    private func appendVisible(from start: Int) {
        let pattern = NameFilter(filter)
        let narrowed = narrowingType
        visible.reserveCapacity(visible.count + entries.count - start)
        entries.withUnsafeBufferPointer { all in
            for index in start..<all.count {
                if !pattern.matches(all[index].name) { continue }
                if let narrowed, !all[index].isDirectory, !(types?.conforms(all[index].contentType, to: narrowed) ?? true) { continue }
                visible.append(index)
            }
        }
    }

    /// Where `index` is in `visible`, which holds indices in ascending order.
    static func position(of index: Int, in visible: [Int]) -> Int? {
        var low = 0
        var high = visible.count
        while low < high {
            let middle = (low + high) / 2
            if visible[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low < visible.count && visible[low] == index ? low : nil
    }

    // MARK: Rows

    /// The `»` row: what Enter does with the marks or the folder shown.
    var actionLabel: String? {
        let label = dialog.confirmationLabel
        if let exporter = dialog.exporter {
            if exporter.savesIntoFolder {
                let what = exporter.documentCount == 1 ? TerminalText.escape(exporter.filenames[0]) : "\(exporter.documentCount) documents"
                return "» \(label ?? "Save") \(what) here"
            }
            return "» \(label ?? "Save") here as \(TerminalText.escape(bytes: name))…"
        }
        if dialog.mover != nil { return "» \(label ?? "Move") here" }
        if isFolderPicker && marks.isEmpty { return "» \(label ?? "Choose") this folder" }
        if !marks.isEmpty { return "» \(label ?? (isFolderPicker ? "Choose" : "Open")) \(marks.count) marked" }
        return nil
    }

    var actionRows: Int { actionLabel == nil ? 0 : 1 }
    var rowCount: Int { actionRows + visible.count }

    var entryUnderCursor: DirectoryEntry? {
        let index = cursor - actionRows
        return visible.indices.contains(index) ? entries[visible[index]] : nil
    }

    // MARK: Types

    /// The type menu's items, in people's words.
    var typeItems: [String] {
        if let filters = namedFilterItems { return filters }
        if let exporter = dialog.exporter { return exporter.contentTypes.map(describe) }
        let allowed = dialog.importer?.allowedContentTypes ?? []
        var items = [allowed.map(describe).joined(separator: ", ")]
        if allowed.count > 1 { items += allowed.map(describe) }
        if dialog.filters.allowsAllFiles && !(items.first == "All files") { items.append("All files") }
        return items
    }

    /// The type an importer's listing is narrowed to, when the person picked one of several.
    var narrowingType: String? {
        guard namedFilterItems == nil, let allowed = dialog.importer?.allowedContentTypes, allowed.count > 1, typeIndex >= 1, typeIndex <= allowed.count else { return nil }
        return allowed[typeIndex - 1]
    }

    func describe(_ identifier: String) -> String {
        if identifier == "public.item" || identifier == "public.data" || identifier == "public.content" { return "All files" }
        guard let description = types?.describe(identifier)?.description, !description.isEmpty else { return identifier }
        return description.prefix(1).uppercased() + description.dropFirst()
    }

    /// The exporter's content type the person picked.
    var chosenContentType: String? {
        guard let exporter = dialog.exporter, exporter.contentTypes.indices.contains(typeIndex) else { return nil }
        return exporter.contentTypes[typeIndex]
    }

    /// Switches an exporter's type: the suggested name follows it (the name Wharf gives for
    /// that type; a name the person typed keeps its stem and takes the type's extension).
    func switchExportType(to index: Int) {
        guard let exporter = dialog.exporter, exporter.contentTypes.indices.contains(index), index != typeIndex else { return }
        let oldName = exporter.choices.indices.contains(typeIndex) ? exporter.choices[typeIndex].filenames.first : exporter.filename
        let newName = exporter.choices.indices.contains(index) ? exporter.choices[index].filenames.first : nil
        typeIndex = index
        guard let oldName, let newName else { return }
        if name == Array(oldName.utf8) {
            name = Array(newName.utf8)
        } else if let oldExtension = Self.extensionOf(oldName), let newExtension = Self.extensionOf(newName),
                  name.count > oldExtension.count + 1, name.suffix(oldExtension.count + 1).elementsEqual([0x2E] + oldExtension) {
            name = Array(name.dropLast(oldExtension.count)) + newExtension
        }
    }

    static func extensionOf(_ name: String) -> [UInt8]? {
        let bytes = Array(name.utf8)
        guard let dot = bytes.lastIndex(of: 0x2E), dot > 0, dot < bytes.count - 1 else { return nil }
        return Array(bytes[(dot + 1)...])
    }
}

/// The picker's filter: a case-insensitive substring, or a glob when it holds `*` or `?`.
/// Compared as bytes (ASCII letters folded), so a name that is not UTF-8 still matches.
struct NameFilter {
    private let pattern: [UInt8]
    private let isGlob: Bool

    init(_ pattern: [UInt8]) {
        self.pattern = pattern.map(Self.fold)
        isGlob = pattern.contains(UInt8(ascii: "*")) || pattern.contains(UInt8(ascii: "?"))
    }

    func matches(_ name: [UInt8]) -> Bool {
        if pattern.isEmpty { return true }
        return name.withUnsafeBufferPointer { name in
            isGlob ? glob(name, 0, 0) : contains(name)
        }
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    private func contains(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count >= pattern.count else { return false }
        let first = pattern[0]
        var start = 0
        while start + pattern.count <= name.count {
            if Self.fold(name[start]) == first {
                var offset = 1
                while offset < pattern.count, Self.fold(name[start + offset]) == pattern[offset] { offset += 1 }
                if offset == pattern.count { return true }
            }
            start += 1
        }
        return false
    }

    private func glob(_ name: UnsafeBufferPointer<UInt8>, _ p: Int, _ n: Int) -> Bool {
        var p = p
        var n = n
        var star: (p: Int, n: Int)?
        while n < name.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = (p, n)
                p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == Self.fold(name[n]) {
                p += 1
                n += 1
            } else if let last = star {
                p = last.p + 1
                n = last.n + 1
                star = (last.p, last.n + 1)
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
