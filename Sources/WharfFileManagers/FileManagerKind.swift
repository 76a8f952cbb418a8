import WharfSystem

/// A terminal file manager (or fuzzy finder) that can show a Wharf dialog: what `--presenter`
/// calls it, and how it behaves as a chooser.
///
/// Each draws on the controlling terminal, but not through the same streams: fzf reads its
/// list on standard input, prints the choice on standard output and draws on standard error;
/// nnn (as a picker) draws on standard error too; lf, ranger and vifm draw on standard output
/// (lf through `/dev/tty`), which leaves their standard error free for Wharf to keep, so that a
/// tool that fails can be quoted. yazi is given the terminal on all three, as nothing here
/// could check where it draws.
public enum FileManagerKind: String, CaseIterable, Sendable {
    case fzf, lf, nnn, ranger, vifm, yazi

    /// The program's name on `PATH`.
    public var program: String { rawValue }

    /// What to install when it is missing.
    public var installAdvice: String {
        switch self {
        case .yazi: "yazi is not packaged in Debian; see https://yazi-rs.github.io for how to install it"
        default: "the Debian package is \(rawValue)"
        }
    }

    /// Whether Wharf keeps its standard error (to quote when it fails): only for tools that
    /// draw elsewhere.
    public var keepsStandardError: Bool {
        switch self {
        case .lf, .ranger, .vifm: true
        case .fzf, .nnn, .yazi: false
        }
    }

    /// Whether, choosing a folder, it writes the folder it shows on every way out (so quitting
    /// is no cancel, and Wharf asks whether that folder is the one).
    public func writesFolderOnEveryQuit(_ mode: FileManagerMode) -> Bool {
        guard mode == .folder else { return false }
        switch self {
        case .lf, .ranger, .yazi: return true
        case .fzf, .nnn, .vifm: return false
        }
    }

    /// How it hands back what was chosen in `mode`.
    public func format(for mode: FileManagerMode) -> FileManagerOutput.Format {
        switch (self, mode) {
        case (.fzf, _): .fzfRecords
        case (.vifm, .files): .nulTerminated
        case (.lf, .folder), (.ranger, .folder), (.vifm, .folder), (.yazi, .folder): .onePath
        case (.lf, .files), (.ranger, .files), (.yazi, .files), (.nnn, _): .lines
        }
    }

    /// The keys a person needs in the tool's chooser mode, shown beside the dialog's heading
    /// (``FileManagerArguments``).
    public func hint(for mode: FileManagerMode) -> String {
        switch (self, mode) {
        case (.fzf, .files(let multiple)):
            "Enter chooses" + (multiple ? " (Tab marks several)" : "") + "; a folder/ opens it; Esc cancels"
        case (.fzf, .folder): "Enter on ./ chooses the folder shown; a folder/ opens it; Esc cancels"
        case (.lf, .files(let multiple)): "l opens a file to choose it" + (multiple ? " (Space marks several)" : "") + "; q cancels"
        case (.nnn, .files(let multiple)): "Enter chooses a file" + (multiple ? " (Space marks several, then q)" : "") + "; q cancels"
        case (.nnn, .folder): "Space marks the folder, then q chooses it; q with nothing marked cancels"
        case (.ranger, .files(let multiple)): "l opens a file to choose it" + (multiple ? " (Space marks several)" : "") + "; q cancels"
        case (.vifm, .files(let multiple)): "l opens a file to choose it" + (multiple ? " (t marks several)" : "") + "; :cq cancels"
        case (.vifm, .folder): ":q chooses the folder shown; :cq cancels"
        case (.yazi, .files): "Enter opens a file to choose it; q cancels"
        case (.lf, .folder), (.ranger, .folder), (.yazi, .folder): "q chooses the folder shown (Wharf asks to be sure)"
        }
    }

    /// The program on `path` (a `PATH`-like list of folders), as an absolute path.
    public func locate(path: [UInt8]) -> FilePath? {
        for directory in path.split(separator: UInt8(ascii: ":")) where directory.first == UInt8(ascii: "/") {
            if let candidate = FilePath(bytes: directory)?.appending(program), candidate.isExecutableFile { return candidate }
        }
        return nil
    }
}

/// What the person chooses with the tool.
public enum FileManagerMode: Sendable, Equatable {
    /// Files (several when `multiple`).
    case files(multiple: Bool)
    /// One folder: a folder picker, or where an exporter saves.
    case folder
}
