import WharfSystem

/// kdialog's command line for a request (kdialog 22.12, Debian 12; read in its `kdialog.cpp`).
///
/// - `--title` (title and message, control characters made spaces: see ``ToolText``),
///   `--attach 0x<XID>` for an `x11:` parent window;
/// - open: `--getopenfilename` (with `--multiple --separate-output` for several),
///   `--getexistingdirectory` for folders; save: `--getsavefilename` (Qt's save dialog asks
///   before replacing); save several: `--getexistingdirectory`;
/// - positional arguments after `--`: the start folder (or folder/name for a save) and the
///   filter. kdialog reads a filter containing `*` as Qt name filters, one per line
///   (`Images (*.png *.jpg)`), and any other as space-separated MIME types, so: globs when any
///   filter has globs (MIME types left out), MIME types (without wildcards) only when none
///   has. Qt matches name filters case-insensitively, so globs stay as written, but for the
///   characters Qt's filters cannot hold (``qtPattern(_:)``); kdialog reads `\` as an escape,
///   so it is doubled in names, and `|` as a line break, so it is replaced in them.
///
/// Qt reads its own options (`-platform`, `-display`, `-reverse`, `-style`, with one `-` or two)
/// anywhere in the command line before kdialog sees it, `--` or not, taking the argument after
/// some as their value. So no text stands alone where it could be one: the title is passed as
/// `--title=TEXT`, and the start path always begins with `/`.
///
/// Not passed: an accept label and modality (kdialog has neither).
public enum KDialogArguments {
    /// - Parameter workingDirectory: where kdialog starts without a folder (it inherits ours);
    ///   a suggested name without a folder goes after it. Read only when needed.
    public static func build(_ request: DesktopDialogRequest, workingDirectory: [UInt8]? = nil) -> [[UInt8]] {
        var args = window(title: request.displayTitle, parent: request.parentWindow)
        let folder = request.currentFolder
        var start: [UInt8]? = folder
        var offersFilters = true
        switch request.kind {
        case .open(let multiple, let directory):
            if directory {
                args.append(bytes("--getexistingdirectory"))
                offersFilters = false
            } else {
                if multiple { args += [bytes("--multiple"), bytes("--separate-output")] }
                args.append(bytes("--getopenfilename"))
            }
        case .save(let currentName, let currentFile):
            args.append(bytes("--getsavefilename"))
            if let currentFile {
                start = currentFile
            } else if let folder {
                start = ZenityArguments.withTrailingSlash(folder) + currentName
            } else if !currentName.isEmpty {
                // kdialog suggests a name only given an absolute path (it dropped a bare one), and
                // a bare `-platform` or `-display` was Qt's option: kdialog aborted.
                start = ZenityArguments.withTrailingSlash(workingDirectory ?? FilePath.current().bytes) + currentName
            }
        case .saveFiles:
            args.append(bytes("--getexistingdirectory"))
            offersFilters = false
        }
        let filter = offersFilters ? filterArgument(ZenityArguments.ordered(request)) : nil
        args.append(bytes("--"))
        if start != nil || filter != nil { args.append(start ?? []) }
        if let filter { args.append(bytes(filter)) }
        return args
    }

    /// `--warningyesno` for ``DesktopReplaceQuestion``, its buttons named for what they do. Yes
    /// is "Choose Another Folder" and No "Replace": kdialog focuses Yes, and Return must not
    /// replace files. (Qt shows the text as HTML only when its first line looks like HTML,
    /// which the question's first line never does.) kdialog reads `\n` in a message as a line
    /// break and `\\` as one `\`, so each `\` is doubled: a name such as `back\new.txt` is
    /// shown as it is, not split over two lines.
    public static func question(_ question: DesktopReplaceQuestion) -> [[UInt8]] {
        window(title: question.title, parent: question.parentWindow)
            + [bytes("--warningyesno"), bytes(doublingBackslashes(question.text)), bytes("--yes-label"), bytes(DesktopReplaceQuestion.otherFolderLabel),
               bytes("--no-label"), bytes(DesktopReplaceQuestion.replaceLabel)]
    }

    /// `--title` and, for an `x11:` parent window, `--attach`.
    private static func window(title: String, parent: String) -> [[UInt8]] {
        var args: [[UInt8]] = []
        let title = ToolText.line(title)
        // One argument: a title `-platform` standing alone was Qt's option (kdialog aborted where
        // Qt does not take `--title` itself, as on Wayland).
        if !title.isEmpty { args.append(bytes("--title=" + title)) }
        if parent.hasPrefix("x11:") {
            var xid = parent.dropFirst(4)
            if xid.hasPrefix("0x") { xid = xid.dropFirst(2) }
            // An X window id is hex; anything else (a NUL would stop the spawn) is no parent.
            if !xid.isEmpty && xid.allSatisfy({ $0.isASCII && $0.isHexDigit }) { args += [bytes("--attach"), bytes("0x" + xid)] }
        }
        return args
    }

    static func filterArgument(_ filters: [DesktopDialogFilter]) -> String? {
        func escaped(_ text: String) -> String { doublingBackslashes(String(text.map { $0 == "|" ? " " : $0 })) }
        let named = filters.filter { !$0.globs.isEmpty }
        if !named.isEmpty {
            return named.map { escaped(ToolText.line($0.name)) + " (" + $0.globs.map { qtPattern(ToolText.glob($0)) }.joined(separator: " ") + ")" }
                .joined(separator: "\n")
        }
        // A MIME type has a `/`: a lone word (`-reverse`) could be taken by Qt for its option.
        let types = filters.flatMap(\.mimeTypes).filter {
            $0.contains("/") && !$0.contains("*") && !$0.contains(" ") && !ToolText.hasControls($0)
        }
        return types.isEmpty ? nil : types.joined(separator: " ")
    }

    /// `glob` as a Qt name filter can hold it. Qt takes `Name (patterns)` apart only when every
    /// character of the patterns is an ASCII letter or digit or one of `_.,*?+;#-[]@{}/!<>$%&=^~:`
    /// (else the whole line is one pattern, and matches nothing), and it splits the patterns at
    /// spaces: `my file.txt` offered `my` and `file.txt`. Any other character becomes `?`, which
    /// still matches it (`*.tüt` → `*.t?t`), or `*` for one that is two UTF-16 units to Qt.
    static func qtPattern(_ glob: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in glob.unicodeScalars {
            let kept = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "_.,*?+;#-[]@{}/!<>$%&=^~:".unicodeScalars.contains(scalar))
            out.append(kept ? scalar : scalar.value > 0xFFFF ? "*" : "?")
        }
        return String(out)
    }

    /// `text` with each `\` doubled: kdialog reads `\` in a message or a filter as the start of
    /// an escape (`\n`, `\\`). By scalars: a `\` followed by a combining mark is one
    /// `Character` with it, and kdialog reads UTF-16 code units.
    static func doublingBackslashes(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" { out.append(scalar) }
            out.append(scalar)
        }
        return String(out)
    }

    static func bytes<S: StringProtocol>(_ text: S) -> [UInt8] { Array(text.utf8) }
}
