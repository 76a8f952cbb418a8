import WharfDialogs
import WharfFileWriting
import WharfSystem
import WharfTerminal

/// What each key does, mode by mode.
extension TerminalPicker {
    func handle(_ key: Key) -> Outcome {
        notice = nil
        switch mode {
        case .browse: return browse(key)
        case .filtering: return filtering(key)
        case .naming: return naming(key)
        case .replacing(let names, let folder): return replacing(key, names: names, folder: folder)
        case .resolving(_, let folder): return resolving(key, folder: folder)
        case .typeMenu(let selection): typeMenu(key, selection: selection)
        case .choiceMenu(let selection): choiceMenu(key, selection: selection)
        case .help: mode = .browse
        }
        return .open
    }

    /// Ctrl-C, and `q` or Escape where they are not text: the person cancels.
    private func cancel() -> Outcome {
        _ = end { responder, accepted throws(DialogError) in try responder.dismiss(accepted: accepted) }
        return .ended
    }

    private func browse(_ key: Key) -> Outcome {
        if move(key) { return .open }
        switch key {
        case .escape, .control(0x03): return cancel()
        case .character(let bytes):
            switch bytes {
            case Array("q".utf8): return cancel()
            case Array("/".utf8):
                // A new filter each time, as in the Neovim picker.
                mode = .filtering
                if !filter.isEmpty {
                    filter = []
                    refilter()
                }
            case Array("-".utf8): if let parent { list(parent, showHidden: showHidden) }
            case Array("~".utf8):
                if let home = environment["HOME"].flatMap(FilePath.init), home.isAbsolute { list(home, showHidden: showHidden) }
            case Array(".".utf8): list(directory, showHidden: !showHidden)
            case Array("?".utf8): mode = .help
            case Array("t".utf8): if typeItems.count > 1 { mode = .typeMenu(selection: typeIndex) } else { notice = "This dialog has one type: \(typeItems.first ?? "")" }
            case Array("c".utf8): if dialog.choices.isEmpty { notice = "This dialog has no choices" } else { mode = .choiceMenu(selection: 0) }
            case Array(" ".utf8): toggleMark()
            default: session.bell()
            }
        case .tab: toggleMark()
        case .enter: return activate()
        case .right: if let entry = entryUnderCursor, entry.isDirectory { list(entry.path, showHidden: showHidden) }
        case .left, .backspace: if let parent { list(parent, showHidden: showHidden) }
        case .control(0x0C): session.redrawAll()   // Ctrl-L
        default: session.bell()
        }
        return .open
    }

    /// Moves the cursor for the arrows and their friends; whether `key` was one.
    private func move(_ key: Key) -> Bool {
        let page = max(listHeight - 1, 1)
        switch key {
        case .up: cursor -= 1
        case .down: cursor += 1
        case .pageUp: cursor -= page
        case .pageDown: cursor += page
        case .home: cursor = 0
        case .end: cursor = rowCount - 1
        case .character(let bytes) where mode == .browse:
            switch bytes {
            case Array("k".utf8): cursor -= 1
            case Array("j".utf8): cursor += 1
            case Array("g".utf8): cursor = 0
            case Array("G".utf8): cursor = rowCount - 1
            default: return false
            }
        default: return false
        }
        cursor = max(0, min(cursor, rowCount - 1))
        return true
    }

    private func filtering(_ key: Key) -> Outcome {
        if move(key) { return .open }
        switch key {
        case .escape:
            filter = []
            mode = .browse
            refilter()
        case .control(0x03): return cancel()
        case .enter:
            mode = .browse
        case .tab: toggleMark()
        case .backspace:
            if filter.isEmpty { mode = .browse } else { filter = Self.droppingLastCharacter(filter); refilter() }
        case .control(0x15):  // Ctrl-U
            filter = []
            refilter()
        case .character(let bytes):
            filter += bytes
            refilter(narrowing: true)
        default: session.bell()
        }
        return .open
    }

    private func naming(_ key: Key) -> Outcome {
        switch key {
        case .escape: mode = .browse
        case .control(0x03): return cancel()
        case .enter:
            guard !name.isEmpty, !name.contains(0x2F), name != [0x2E], name != [0x2E, 0x2E] else {
                notice = "A file name, without /"
                return .open
            }
            return save(overwrite: false)
        case .backspace: name = Self.droppingLastCharacter(name)
        case .control(0x15): name = []
        case .character(let bytes): name += bytes
        default: session.bell()
        }
        return .open
    }

    private func replacing(_ key: Key, names: [[UInt8]], folder: Bool) -> Outcome {
        switch key {
        case .character(let bytes) where bytes == Array("y".utf8) || bytes == Array("Y".utf8):
            return save(overwrite: true)
        case .control(0x03): return cancel()
        case .character(let bytes) where bytes == Array("n".utf8) || bytes == Array("N".utf8):
            mode = folder ? .browse : .naming
        case .escape: mode = folder ? .browse : .naming
        default: session.bell()
        }
        return .open
    }

    /// A mover's folder holds some of the names: `r` replaces them, `k` keeps both (the moved
    /// files take free names), `c` or Escape goes back to choose another folder.
    private func resolving(_ key: Key, folder: FilePath) -> Outcome {
        switch key {
        case .character(let bytes) where bytes == Array("r".utf8) || bytes == Array("R".utf8):
            return move(to: folder, resolution: .replace)
        case .character(let bytes) where bytes == Array("k".utf8) || bytes == Array("K".utf8):
            return move(to: folder, resolution: .keepBoth)
        case .control(0x03): return cancel()
        case .character(let bytes) where bytes == Array("c".utf8) || bytes == Array("C".utf8): mode = .browse
        case .escape: mode = .browse
        default: session.bell()
        }
        return .open
    }

    private func typeMenu(_ key: Key, selection: Int) {
        let count = typeItems.count
        switch key {
        case .up: mode = .typeMenu(selection: max(selection - 1, 0))
        case .down: mode = .typeMenu(selection: min(selection + 1, count - 1))
        case .enter:
            mode = .browse
            if namedFilterItems != nil {
                selectFilter(selection)
            } else if dialog.exporter != nil {
                switchExportType(to: selection)
            } else {
                typeIndex = selection
                refilter()
            }
        case .escape, .control(0x03): mode = .browse
        case .character(let bytes) where bytes == Array("t".utf8) || bytes == Array("q".utf8): mode = .browse
        default: session.bell()
        }
    }

    // MARK: Marking and choosing

    private func toggleMark() {
        guard let entry = entryUnderCursor else { return }
        guard canMark else {
            notice = "This dialog takes one \(dialog.exporter != nil ? "name" : "file"): Enter chooses it"
            return
        }
        if !entry.enabled {
            notice = "\(TerminalText.escape(bytes: entry.name)) cannot be chosen: \(entry.disabledReason ?? "not in this dialog")"
            return
        }
        if isFolderPicker && !entry.isDirectory { return }
        let rowsBefore = actionRows
        if let index = marks.firstIndex(of: entry.path) {
            marks.remove(at: index)
        } else {
            if !allowsMultiple { marks.removeAll() }
            marks.append(entry.path)
        }
        // The » row comes and goes with the marks: the cursor stays on its entry, then moves on.
        cursor = min(cursor + (actionRows - rowsBefore) + 1, rowCount - 1)
    }

    /// Enter: the `»` row does what it says; a folder opens; a file is chosen (with the marked
    /// ones), or for an exporter gives its name to the name field.
    private func activate() -> Outcome {
        if actionRows == 1 && cursor == 0 {
            if dialog.exporter != nil {
                if dialog.exporter?.savesIntoFolder == true { return save(overwrite: false) }
                mode = .naming
                return .open
            }
            if !marks.isEmpty { return choose(marks) }
            if let reason = folderChoice?.reason {
                notice = "\(TerminalText.escape(bytes: directory.lastComponent)) cannot be chosen: \(reason)"
                return .open
            }
            return choose([directory])
        }
        guard let entry = entryUnderCursor else { return .open }
        if entry.isDirectory {
            list(entry.path, showHidden: showHidden)
            return .open
        }
        if let exporter = dialog.exporter {
            if exporter.savesIntoFolder {
                notice = "the documents keep their names: open a folder, then Enter on the » row"
                return .open
            }
            name = entry.name
            mode = .naming
            return .open
        }
        guard entry.enabled else {
            notice = "\(TerminalText.escape(bytes: entry.name)) cannot be chosen: \(entry.disabledReason ?? "not in this dialog")"
            return .open
        }
        if allowsMultiple {
            return choose(marks.contains(entry.path) ? marks : marks + [entry.path])
        }
        return choose([entry.path])
    }

    private func choose(_ paths: [FilePath]) -> Outcome {
        if dialog.mover != nil, let folder = paths.first { return move(to: folder, resolution: nil) }
        let urls = paths.map { FileURL.from(path: $0) }
        return end { responder, accepted throws(DialogError) in try responder.choose(urls: urls, accepted: accepted) } == nil ? .ended : .open
    }

    /// A mover: moves the files into `folder`; names taken there are asked about first.
    private func move(to folder: FilePath, resolution: MoveConflictResolution?) -> Outcome {
        let url = FileURL.from(path: folder)
        let refusal = end { responder, accepted throws(DialogError) in
            try responder.move(folder: url, resolution: resolution, canAsk: true, accepted: accepted)
        }
        guard let refusal else { return .ended }
        if case .nameConflict(_, let names) = refusal {
            notice = nil
            mode = .resolving(names: names, folder: folder)
        } else {
            mode = .browse
        }
        return .open
    }

    /// Saves into the folder shown: one document under the name field's name, several (or one
    /// the app saves into a folder) under their own names. An existing file is asked about first ("Replace?").
    private func save(overwrite: Bool) -> Outcome {
        guard let exporter = dialog.exporter else { return .open }
        let several = exporter.savesIntoFolder
        let target = several ? directory : directory.appending(name)
        let url = FileURL.from(path: target)
        let contentType = chosenContentType
        let refusal = end { responder, accepted throws(DialogError) in
            try responder.save(url: url, contentType: contentType, overwrite: overwrite, accepted: accepted)
        }
        guard let refusal else { return .ended }
        if case .fileExists = refusal {
            notice = nil
            let names = several ? chosenFilenames.filter { (try? FileStatus.ofLink(directory.appending($0))) != nil } : [name]
            mode = .replacing(names: names, folder: several)
        }
        return .open
    }

    /// The names the documents take with the chosen type.
    var chosenFilenames: [[UInt8]] {
        guard let exporter = dialog.exporter else { return [] }
        let names = exporter.choices.indices.contains(typeIndex) ? exporter.choices[typeIndex].filenames : exporter.filenames
        return names.map { Array($0.utf8) }
    }

    /// `bytes` without its last UTF-8 character (or last byte, when that is not UTF-8).
    static func droppingLastCharacter(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        // The start of the last character: back over up to three continuation bytes.
        var start = bytes.count - 1
        while start > 0, bytes.count - start < 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        let lead = bytes[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        return length == bytes.count - start ? Array(bytes[..<start]) : Array(bytes.dropLast())
    }
}
