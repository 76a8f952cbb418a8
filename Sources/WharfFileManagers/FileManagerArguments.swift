import WharfSystem

/// The command line that starts a tool as a chooser, in its documented chooser mode, in
/// `directory`, writing what was chosen to `output` (a file in a private folder; fzf prints it
/// instead).
///
/// - fzf: `--read0 --print0` (records may hold any byte), `--multi` only where several may be
///   chosen; each record is `INDEX<TAB>shown name` and only the shown name is displayed and
///   searched (`--with-nth=2..`), so what comes back is the index of an entry Wharf listed,
///   whatever fzf makes of the name's bytes.
/// - lf: `-single` (no server left running) with `-selection-path`, or `-last-dir-path` for a
///   folder.
/// - nnn: `-p` (a folder is chosen by marking it).
/// - ranger: `--choosefiles` / `--choosedir`.
/// - vifm: `--choose-files` with `--delimiter ''` (an empty delimiter is NUL: any name can be
///   carried) / `--choose-dir`; the folder given for both panes.
/// - yazi: `--chooser-file` / `--cwd-file`.
///
/// `select`, a file in `directory`, is where lf and nnn open with the cursor (given a file,
/// they open its folder on it): the file just refused, so the person sees what was refused.
///
/// `heading` names the dialog: its title (or what it does) and its message, each already made
/// safe to print (no control characters: no newline, no escape sequence). Each tool shows it
/// where it can, with the keys its chooser mode needs (``FileManagerKind/hint(for:)``):
///
/// - fzf: its header (`--header`), with `shownFolder`.
/// - lf: its top line (`-command 'set promptfmt "…"'`), before the folder and file it shows.
/// - ranger: a notice in its status bar (`--cmd='echo …'`), which ranger shows for a few
///   seconds.
/// - vifm: a line of its status bar, kept there (`-c 'set statusline=…'`), read from the
///   environment ``environment(for:mode:heading:)`` sets, so nothing of it is parsed by vifm.
/// - nnn and yazi: nowhere; neither has a way to show a line of the caller's.
///
/// Every text passed in a tool's command language is quoted as that language requires: a title
/// holding quotes, `%`, `|`, `;` or `#` is shown as it is, never run.
public enum FileManagerArguments {
    public static func build(
        _ kind: FileManagerKind, mode: FileManagerMode, directory: FilePath, output: FilePath, heading: [String] = [],
        shownFolder: String? = nil, select: FilePath? = nil
    ) -> [[UInt8]] {
        let folder = directory.bytes
        let start = (select.map { $0.directory == directory } ?? false) ? select!.bytes : folder
        let out = output.bytes
        func text(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }
        let shown = heading.isEmpty ? [] : showing(heading, keys: kind.hint(for: mode), in: kind, shownFolder: shownFolder)
        switch (kind, mode) {
        case (.fzf, _):
            var arguments = text("--read0", "--print0", "--delimiter=\t", "--with-nth=2..", "--tiebreak=index")
            if case .files(true) = mode { arguments += text("--multi") } else { arguments += text("--no-multi") }
            return arguments + shown
        case (.lf, .files): return text("-single", "-selection-path") + [out] + shown + [start]
        case (.lf, .folder): return text("-single", "-last-dir-path") + [out] + shown + [folder]
        case (.nnn, _): return text("-p") + [out, start]
        case (.ranger, .files): return [Array("--choosefiles=".utf8) + out] + shown + [folder]
        case (.ranger, .folder): return [Array("--choosedir=".utf8) + out] + shown + [folder]
        case (.vifm, .files): return text("--choose-files") + [out] + text("--delimiter", "") + shown + [folder, folder]
        case (.vifm, .folder): return text("--choose-dir") + [out] + shown + [folder, folder]
        case (.yazi, .files): return [Array("--chooser-file=".utf8) + out, folder]
        case (.yazi, .folder): return [Array("--cwd-file=".utf8) + out, folder]
        }
    }

    /// The variables the tool runs with beside the caller's environment: the heading on one
    /// line (`WHARF_DIALOG_HEADING`, parts joined by ` · `) and the keys
    /// (`WHARF_DIALOG_KEYS`), for vifm's status line, or a person's own configuration of any
    /// of the tools, to show.
    public static func environment(for kind: FileManagerKind, mode: FileManagerMode, heading: [String]) -> [String: String] {
        guard !heading.isEmpty else { return [:] }
        return ["WHARF_DIALOG_HEADING": heading.joined(separator: " · "), "WHARF_DIALOG_KEYS": kind.hint(for: mode)]
    }

    /// The arguments that show `heading` and `keys` in `kind`.
    private static func showing(_ heading: [String], keys: String, in kind: FileManagerKind, shownFolder: String?) -> [[UInt8]] {
        let line = heading.joined(separator: " · ")
        switch kind {
        case .fzf:
            return [Array(("--header=" + (heading + [shownFolder, keys].compactMap { $0 }).joined(separator: "\n")).utf8)]
        case .lf:
            // Bold heading, lf's own folder (%d) and file (%f) as it draws them, the keys dim at
            // the right (%S).
            let bold = "\\033[1m", folder = "\\033[34;1m", dim = "\\033[2m", plain = "\\033[0m"
            let format = bold + lfPromptText(line, style: bold) + plain + "  " + folder + "%d" + plain + bold + "%f" + plain
                + "%S" + dim + lfPromptText(keys, style: dim) + plain
            return [Array("-command".utf8), Array("set promptfmt \"\(format)\"".utf8)]
        case .ranger:
            return [Array(("--cmd=echo " + rangerMacroText(line + "  [" + keys + "]")).utf8)]
        case .vifm:
            let status = "  %{$WHARF_DIALOG_HEADING}%=%{$WHARF_DIALOG_KEYS} %N  %t%= %A %10u:%-7g %15s %20d "
            return [Array("-c".utf8), Array("set laststatus statusline=\"\(status)\"".utf8)]
        case .nnn, .yazi:
            return []
        }
    }

    /// `text` inside a double-quoted string of lf's command language (where `\"` and `\\` are
    /// the quote and the backslash) as part of `promptfmt`, where lf replaces `%d`, `%f`, `%u`
    /// and the like and has no escape for `%`: each `%` is followed by `style` again (an escape
    /// sequence lf reads as drawing attributes), so that no `%` starts one of lf's expansions.
    private static func lfPromptText(_ text: String, style: String) -> String {
        var quoted = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "%": quoted += "%" + style
            default: quoted.unicodeScalars.append(character)
            }
        }
        return quoted
    }

    /// `text` as what follows `echo ` in a ranger command, which ranger reads for macros
    /// (`%f`, `%d`, `%s`…) with `%%` standing for `%`.
    private static func rangerMacroText(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            if character == "%" { escaped += "%%" } else { escaped.unicodeScalars.append(character) }
        }
        return escaped
    }

    /// fzf's input: one NUL-terminated record per entry, `INDEX<TAB>shown`.
    public static func fzfRecords(_ shown: [String], startingAt first: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        for (offset, name) in shown.enumerated() {
            bytes += Array(String(first + offset).utf8) + [9] + Array(name.utf8).filter { $0 != 0 } + [0]
        }
        return bytes
    }
}
