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
public enum FileManagerArguments {
    public static func build(
        _ kind: FileManagerKind, mode: FileManagerMode, directory: FilePath, output: FilePath, header: [String] = [],
        select: FilePath? = nil
    ) -> [[UInt8]] {
        let folder = directory.bytes
        let start = (select.map { $0.directory == directory } ?? false) ? select!.bytes : folder
        let out = output.bytes
        func text(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }
        switch (kind, mode) {
        case (.fzf, _):
            var arguments = text("--read0", "--print0", "--delimiter=\t", "--with-nth=2..", "--tiebreak=index")
            if case .files(true) = mode { arguments += text("--multi") } else { arguments += text("--no-multi") }
            if !header.isEmpty { arguments += [Array(("--header=" + header.joined(separator: "\n")).utf8)] }
            return arguments
        case (.lf, .files): return text("-single", "-selection-path") + [out, start]
        case (.lf, .folder): return text("-single", "-last-dir-path") + [out, folder]
        case (.nnn, _): return text("-p") + [out, start]
        case (.ranger, .files): return [Array("--choosefiles=".utf8) + out, folder]
        case (.ranger, .folder): return [Array("--choosedir=".utf8) + out, folder]
        case (.vifm, .files): return text("--choose-files") + [out] + text("--delimiter", "") + [folder, folder]
        case (.vifm, .folder): return text("--choose-dir") + [out, folder, folder]
        case (.yazi, .files): return [Array("--chooser-file=".utf8) + out, folder]
        case (.yazi, .folder): return [Array("--cwd-file=".utf8) + out, folder]
        }
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
