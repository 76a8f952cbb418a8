import WharfDialogs
import WharfSystem
import WharfTerminal

/// What the picker looks like: the title line (title · type · folder · filter), the dialog's
/// message, the entries, a status line (why an entry cannot be chosen, the filter, the name
/// field, a question) and the keys.
extension TerminalPicker {
    var headerRows: Int { dialog.message?.isEmpty == false ? 2 : 1 }
    var listHeight: Int { max(session.size.rows - headerRows - 2, 1) }

    func draw() {
        let size = session.size
        var frame = Frame(rows: size.rows, columns: size.columns)
        frame.set(0, [Frame.Span(" " + titleLine + " ", .bold)])
        if let message = dialog.message, !message.isEmpty {
            frame.set(1, [Frame.Span(" " + TerminalText.escape(message))])
        }
        let first = headerRows
        switch mode {
        case .help: drawHelp(into: &frame, from: first)
        case .typeMenu(let selection): drawTypeMenu(into: &frame, from: first, selection: selection)
        case .choiceMenu(let selection): drawChoiceMenu(into: &frame, from: first, selection: selection)
        default: drawEntries(into: &frame, from: first)
        }
        let statusRow = size.rows - 2
        let (status, style, cursorColumn) = statusLine
        frame.set(statusRow, [Frame.Span(" " + status, style)])
        if let cursorColumn { frame.cursor = (statusRow, min(1 + cursorColumn, size.columns - 1)) }
        frame.set(size.rows - 1, [Frame.Span(" " + keysLine, .dim)])
        session.draw(frame)
    }

    private var titleLine: String {
        let verb = dialog.exporter != nil ? "Save" : dialog.mover != nil ? "Move to a Folder" : (isFolderPicker ? "Choose a Folder" : "Open")
        var parts = [dialog.title.map(TerminalText.escape) ?? verb]
        if !isFolderPicker, let type = typeItems.indices.contains(typeIndex) ? typeItems[typeIndex] : nil, !type.isEmpty { parts.append(type) }
        parts.append(shownDirectory)
        if !filter.isEmpty { parts.append("/" + TerminalText.escape(bytes: filter)) }
        var line = parts.joined(separator: " · ")
        if nextCursor != nil { line += " (\(entries.count) listed…)" }
        return line
    }

    /// The folder shown, home written `~`.
    private var shownDirectory: String {
        let bytes = directory.bytes
        if let home = environment["HOME"].map({ Array($0.utf8) }), home.count > 1, home.last != 0x2F {
            if bytes == home { return "~" }
            if bytes.starts(with: home + [0x2F]) { return "~" + TerminalText.escape(bytes: Array(bytes[home.count...])) }
        }
        return TerminalText.escape(bytes: bytes)
    }

    private func drawEntries(into frame: inout Frame, from first: Int) {
        let height = listHeight
        if cursor < top { top = cursor }
        if cursor >= top + height { top = cursor - height + 1 }
        top = max(0, min(top, max(rowCount - height, 0)))
        for line in 0..<height {
            let row = top + line
            guard row < rowCount else { break }
            let underCursor = row == cursor
            if row < actionRows, let label = actionLabel {
                frame.set(first + line, [Frame.Span(" " + label + " ", underCursor ? [.reverse, .bold] : .bold)])
                continue
            }
            let entry = entries[visible[row - actionRows]]
            let mark = marks.contains(entry.path) ? "* " : "  "
            let chosable = entry.enabled || entry.isDirectory
            var name = TerminalText.escape(bytes: entry.name)
            if entry.isDirectory { name += "/" } else if entry.isSymlink { name += "@" }
            // A terminal that cannot dim (a VT100) shows what cannot be chosen in parentheses.
            let text = mark + (chosable || session.canDim ? name : "(" + name + ")")
            var style: Frame.Style = chosable ? [] : .dim
            if underCursor { style.insert(.reverse) }
            frame.set(first + line, [Frame.Span(text + " ", style)])
        }
        if rowCount == 0 && !isListing {
            frame.set(first, [Frame.Span(filter.isEmpty ? "  (empty folder)" : "  (nothing matches)", .dim)])
        }
    }

    private func drawHelp(into frame: inout Frame, from first: Int) {
        let lines = [
            "Keys",
            "  Enter        open a folder; choose a file (with the marked ones); run the » line",
            "  Tab, Space   mark or unmark (where several may be chosen, and in folder pickers)",
            "  Up, Down     move (also k, j; PageUp, PageDown; Home, End, g, G)",
            "  /            filter names as you type: a substring or a glob (*.md); Esc clears it",
            "  - , Left     the parent folder",
            "  ~            your home folder",
            "  .            show or hide hidden files",
            "  t            choose the type, or the app's filter (what may be chosen)",
            "  c            the app's choices: Enter or Space toggles a box or takes the next option",
            "  ?            these keys",
            "  q, Esc       cancel",
            "",
            "Any key closes this.",
        ]
        for (offset, line) in lines.enumerated() { frame.set(first + offset, [Frame.Span(" " + line, offset == 0 ? .bold : [])]) }
    }

    private func drawTypeMenu(into frame: inout Frame, from first: Int, selection: Int) {
        frame.set(first, [Frame.Span(namedFilterItems == nil ? " Type:" : " Filter:", .bold)])
        for (offset, item) in typeItems.enumerated() {
            frame.set(first + 1 + offset, [Frame.Span("   " + item + " ", offset == selection ? .reverse : [])])
        }
    }

    /// The status line's text, its style, and where the cursor stands in it (a text field).
    private var statusLine: (String, Frame.Style, Int?) {
        switch mode {
        case .naming:
            let label = (dialog.exporter?.filenameLabel).map(TerminalText.escape) ?? "Name"
            let text = "\(label): " + TerminalText.escape(bytes: name)
            return (text, [], DisplayWidth.columns(text))
        case .replacing(let names, let folder):
            let quoted = names.map { "“" + TerminalText.escape(bytes: $0) + "”" }.joined(separator: ", ")
            let what = folder ? (names.count == 1 ? "\(quoted) already exists here." : "\(quoted) already exist here.") : "\(quoted) already exists."
            return ("\(what) Replace? (y/n)", .bold, nil)
        case .resolving(let names, let folder):
            let quoted = names.map { "“" + TerminalText.escape(bytes: $0) + "”" }.joined(separator: ", ")
            let verb = names.count == 1 ? "exists" : "exist"
            return ("\(quoted) already \(verb) in \(TerminalText.escape(bytes: folder.lastComponent)). Replace, Keep both or Cancel? (r/k/c)", .bold, nil)
        case .filtering:
            let text = "/" + TerminalText.escape(bytes: filter)
            return (text + "   (" + count + ")", [], DisplayWidth.columns(text))
        default:
            break
        }
        if isListing { return ("Listing…", .dim, nil) }
        if let notice { return (notice, .bold, nil) }
        if let listingProblem { return (listingProblem, .bold, nil) }
        if actionRows == 1 && cursor == 0, dialog.importer != nil, marks.isEmpty, let reason = folderChoice?.reason {
            return ("This folder cannot be chosen: \(reason)", .dim, nil)
        }
        if let entry = entryUnderCursor, !entry.enabled, !entry.isDirectory {
            return (entry.disabledReason ?? "This cannot be chosen here", [], nil)
        }
        return (count + (showHidden ? ", hidden files shown" : ""), .dim, nil)
    }

    /// How many entries show, of how many listed.
    private var count: String {
        visible.count == entries.count ? "\(entries.count) entries" : "\(visible.count) of \(entries.count) entries"
    }

    private var keysLine: String {
        switch mode {
        case .naming: return "Enter save · Esc back to the list · Ctrl-U clear"
        case .replacing: return "y replace · n choose another name"
        case .resolving: return "r replace · k keep both · c cancel: choose another folder"
        case .filtering: return "type to filter · Enter keep · Esc clear · Up/Down move"
        case .typeMenu: return "Up/Down move · Enter pick · Esc back"
        case .choiceMenu: return "Up/Down move · Enter/Space/Right next value · Left previous · Esc back"
        case .help: return "any key closes the help"
        case .browse:
            // The app's confirmation label names what Enter does to a file.
            let verb = dialog.confirmationLabel.map(TerminalText.escape) ?? (dialog.exporter != nil ? "name" : "choose")
            let enter = "Enter open/\(verb)"
            let mark = canMark ? " · Tab mark" : ""
            let type = typeItems.count > 1 ? (namedFilterItems == nil ? " · t type" : " · t filter") : ""
            let choices = dialog.choices.isEmpty ? "" : " · c choices"
            return "\(enter)\(mark) · / filter · . hidden · - up · ~ home\(type)\(choices) · ? keys · q cancel"
        }
    }
}
