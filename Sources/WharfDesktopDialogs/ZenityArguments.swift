/// zenity's command line for a request (zenity 3.44, Debian 12; what it does with each option
/// was read in its `fileselection.c`).
///
/// - `--file-selection`, `--title` (the title with the message: zenity accepts `--text` for a
///   file selection but ignores it; control characters made spaces, see ``ToolText``), `--modal`;
/// - open: `--multiple`, `--directory`; save: `--save --confirm-overwrite`; save several:
///   `--directory` (the human picks the folder);
/// - `--filename`: the start folder with a trailing `/` (zenity then only opens it), or for a
///   save the folder and suggested name (zenity puts the name in the name field);
/// - `--file-filter=NAME | PATTERN…`: globs case-folded (GTK 3 matches them byte for byte);
///   zenity takes no MIME types, so those are left out and a filter left empty is dropped; the
///   current filter goes first because GTK selects the first one; a space in a glob (zenity
///   splits on spaces) becomes `?`, and a `|` in a name (zenity splits the name there) `¦`;
/// - `--separator=/`: see ``ZenityOutput``.
///
/// Not passed: `--ok-label` (ignored for file selection), `--attach` (zenity 3.44's native
/// file chooser has no parent), `--timeout` (broken for file selection in 3.44: it asserts and
/// leaves the dialog open; the caller's cancel is the timeout).
public enum ZenityArguments {
    public static func build(_ request: DesktopDialogRequest) -> [[UInt8]] {
        var args: [[UInt8]] = [bytes("--file-selection")]
        let title = ToolText.line(request.displayTitle)
        if !title.isEmpty { args.append(bytes("--title=" + title)) }
        if request.modal { args.append(bytes("--modal")) }
        let slash = UInt8(ascii: "/")
        var offersFilters = true
        switch request.kind {
        case .open(let multiple, let directory):
            if multiple { args.append(bytes("--multiple")) }
            if directory { args.append(bytes("--directory")); offersFilters = false }
            if let folder = request.currentFolder { args.append(bytes("--filename=") + withTrailingSlash(folder)) }
        case .save(let currentName, let currentFile):
            args.append(bytes("--save"))
            args.append(bytes("--confirm-overwrite"))
            if let currentFile {
                args.append(bytes("--filename=") + currentFile)
            } else if let folder = request.currentFolder {
                args.append(bytes("--filename=") + withTrailingSlash(folder) + currentName)
            } else if !currentName.isEmpty {
                args.append(bytes("--filename=") + currentName)
            }
        case .saveFiles:
            args.append(bytes("--directory"))
            offersFilters = false
            if let folder = request.currentFolder { args.append(bytes("--filename=") + withTrailingSlash(folder)) }
        }
        if offersFilters {
            for filter in ordered(request) {
                let globs = filter.globs.map { ToolText.glob(GlobCaseFolding.fold($0)).replacingSpaces() }
                guard !globs.isEmpty else { continue }
                let name = String(ToolText.line(filter.name).map { $0 == "|" ? "¦" : $0 })
                args.append(bytes("--file-filter=" + name + " | " + globs.joined(separator: " ")))
            }
        }
        args.append([UInt8]("--separator=".utf8) + [slash])
        return args
    }

    /// `--question` for ``DesktopReplaceQuestion``: the text as it is (`--no-markup`: zenity
    /// then neither reads Pango markup nor `\` escapes in it), the buttons named for what they
    /// do, and the one that does not replace focused, so that Return replaces nothing.
    public static func question(_ question: DesktopReplaceQuestion) -> [[UInt8]] {
        var args = [bytes("--question")]
        let title = ToolText.line(question.title)
        if !title.isEmpty { args.append(bytes("--title=" + title)) }
        args += [bytes("--modal"), bytes("--no-markup"), bytes("--default-cancel"), bytes("--icon-name=dialog-warning"),
                 bytes("--text=" + question.text), bytes("--ok-label=" + DesktopReplaceQuestion.replaceLabel),
                 bytes("--cancel-label=" + DesktopReplaceQuestion.otherFolderLabel)]
        return args
    }

    /// The filters with the current one first.
    static func ordered(_ request: DesktopDialogRequest) -> [DesktopDialogFilter] {
        guard let current = request.validCurrentFilter else { return request.filters }
        var filters = request.filters
        let first = filters.remove(at: current)
        return [first] + filters
    }

    static func withTrailingSlash(_ folder: [UInt8]) -> [UInt8] {
        folder.last == UInt8(ascii: "/") ? folder : folder + [UInt8(ascii: "/")]
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}

extension String {
    fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "?" : $0 }) }
}
