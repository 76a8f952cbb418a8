import Glibc
import WharfSystem

/// Something the owning client must be told about one of its dialogs.
///
/// Every dialog ends exactly once, as SwiftUI's importer and exporter do: first
/// `presentationChanged(isPresented: false)` (the `isPresented` binding turns false before the
/// completion handler runs), then exactly one of `completed`, `failed` or `cancelled`. After
/// that, nothing more is ever emitted for the dialog.
public enum DialogEvent: Sendable, Equatable {
    /// The dialog is no longer presented. Always immediately followed by its ending.
    case presentationChanged(DialogID, isPresented: Bool)
    /// Success: the chosen files (importer), the written files (exporter) or the moved files at
    /// their new places (mover, in the order the app gave them). For exporters,
    /// `contentTypes` holds the resolved type of each file, in the same order; importers report nil.
    /// `selections`: the filter in force and the choices' values, for a dialog that has any.
    case completed(DialogID, DialogKind, files: [ChosenFile], contentTypes: [String]?, selections: DialogSelections? = nil)
    /// The operation failed: SwiftUI's `Result` failure (a presenter error, a failed write, a
    /// snapshot the client could not produce).
    case failed(DialogID, DialogKind, DialogFailure)
    /// The dialog ended without a result; SwiftUI calls `onCancellation`, never `onCompletion`.
    case cancelled(DialogID, DialogKind, reason: CancellationReason)
    /// An export of more than 1 MiB is under way (at most ten of these a second).
    case progress(DialogID, written: Int64, total: Int64)
    /// A lazily produced document (one without contents) needs its bytes, in `contentType`:
    /// the server asks the client (`exporter/snapshot`) and answers with
    /// ``DialogEngine/provideSnapshot(client:id:documentIndex:source:)`` or
    /// ``DialogEngine/snapshotFailed(client:id:documentIndex:message:)``.
    case snapshotNeeded(DialogID, documentIndex: Int, contentType: String)

    /// The dialog the event is about.
    public var dialog: DialogID {
        switch self {
        case .presentationChanged(let id, _), .completed(let id, _, _, _, _), .failed(let id, _, _),
             .cancelled(let id, _, _), .progress(let id, _, _), .snapshotNeeded(let id, _, _):
            return id
        }
    }

    /// True for the three events that end a dialog.
    public var isEnding: Bool {
        switch self {
        case .completed, .failed, .cancelled: return true
        case .presentationChanged, .progress, .snapshotNeeded: return false
        }
    }
}

/// A file a dialog handed to the app: what the access layer turns into a security-scoped grant.
public struct ChosenFile: Sendable, Equatable {
    /// Absolute, normalised path; symlinks resolved (unless the importer returns unresolved aliases).
    public var path: FilePath
    /// Who the file was when it was chosen or written, so a later swap of the path is noticed.
    public var identity: FileIdentity
    /// When that same file was created (nanoseconds since the epoch), read with `identity`;
    /// nil when the file system does not say.
    public var birth: Int64?
    /// A folder: what is inside comes with it.
    public var isDirectory: Bool
    /// The grant is for writing (exported files) rather than reading (imported files).
    public var forWriting: Bool
    /// The file is a symbolic link returned as itself (`importsUnresolvedAliases`); `identity`
    /// is the link's.
    public var isSymlink: Bool
    /// A mover's file: where it was, as the app gave it. The client's rights (``forWriting``
    /// says which it had) and the bookmarks move with it from there.
    public var movedFrom: MoverFile?
    /// Where a destination-only exporter would save (``ExporterRequest/destinationOnly``):
    /// nothing was written there, `identity` means nothing, and nothing is granted.
    public var isDestinationOnly = false

    public init(path: FilePath, identity: FileIdentity, birth: Int64?, isDirectory: Bool,
                forWriting: Bool, isSymlink: Bool = false, movedFrom: MoverFile? = nil) {
        self.path = path
        self.identity = identity
        self.birth = birth
        self.isDirectory = isDirectory
        self.forWriting = forWriting
        self.isSymlink = isSymlink
        self.movedFrom = movedFrom
    }

    /// The file at `path` itself, a symbolic link not followed, as it is now: what an exporter
    /// reports for a file it wrote, and an importer for a link it returns as itself.
    static func unfollowed(at path: FilePath, forWriting: Bool, isSymlink: Bool) throws(SystemError) -> ChosenFile {
        let status = try FileStatus.ofLink(path)
        let identity = try FileIdentity.of(path, followSymlinks: false)
        let born = FileBirth.of(path, followSymlinks: false)
        return ChosenFile(path: path, identity: identity, birth: born?.inode == identity.inode ? born?.birth : nil,
                          isDirectory: !isSymlink && status.kind == .directory, forWriting: forWriting,
                          isSymlink: isSymlink)
    }

    /// A file an exporter has just written, as it is now at `path`, reached as the writer
    /// reached it: its directory never through a symbolic link. A folder swapped for a link
    /// since the write must not make the file the link leads to the one granted.
    static func written(at path: FilePath) throws(SystemError) -> ChosenFile {
        let directory = try Syscalls.openDirectoryWithoutLinks(path.directory)
        let file = try directory.open(FilePath(unchecked: path.lastComponent), Syscalls.openPathOnly | O_NOFOLLOW, reportedAs: path)
        let status = try file.status()
        return ChosenFile(path: path, identity: try file.identity(status: status), birth: file.birth(),
                          isDirectory: false, forWriting: true, isSymlink: false)
    }

    /// A destination chosen and checked, not written (``ExporterRequest/destinationOnly``).
    static func destination(at path: FilePath) -> ChosenFile {
        var file = ChosenFile(path: path, identity: FileIdentity(device: 0, inode: 0, fileSystem: 0), birth: nil,
                              isDirectory: false, forWriting: true)
        file.isDestinationOnly = true
        return file
    }

    /// The `file:` URL the client receives.
    public var url: String { FileURL.from(path: path) }
}

/// Why a dialog ended without a result.
public enum CancellationReason: String, Sendable, Equatable, CustomStringConvertible {
    /// The human dismissed the dialog.
    case user
    /// The app asked (`cancel`).
    case client
    /// The dialog's `timeoutMs` ran out.
    case timeout
    /// The client went away (EOF, `exit`); recorded so the state store knows what happened.
    case disconnected

    public var description: String { rawValue }
}

/// The failure a dialog ended with: the error half of SwiftUI's `Result`.
public struct DialogFailure: Sendable, Equatable, CustomStringConvertible {
    /// A stable, open set of failure codes (the server maps them to protocol codes).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The presenter could not serve the dialog (a script ran out of steps, an expectation
        /// did not hold, a scripted choice was rejected, a frontend gave up).
        public static let presenterFailed = Code(rawValue: "presenterFailed")
        /// Writing an exported file failed; nothing was left behind.
        public static let writeFailed = Code(rawValue: "writeFailed")
        /// An exported file appeared at the destination after the user chose it without
        /// agreeing to overwrite; nothing was written.
        public static let fileExists = Code(rawValue: "fileExists")
        /// The client could not produce a lazily written document; nothing was written.
        public static let snapshotFailed = Code(rawValue: "snapshotFailed")
        /// A mover's folder holds a name of a file to move, and nobody could be asked what to do
        /// (or it appeared after the human chose); nothing was moved.
        public static let nameConflict = Code(rawValue: "nameConflict")
        /// A move failed (a source changed or vanished, a file that cannot be moved, the disk);
        /// everything is back where it was.
        public static let moveFailed = Code(rawValue: "moveFailed")
    }

    public var code: Code
    /// A sentence that says what happened to which file, and why.
    public var message: String
    /// The file the failure is about, as a `file:` URL, when there is one.
    public var url: String?

    public init(code: Code, message: String, url: String? = nil) {
        self.code = code
        self.message = message
        self.url = url
    }

    public var description: String { "\(code): \(message)" }
}
