import WharfJSONRPC
import WharfProtocol
import WharfSystem

/// The app a daemon client belongs to, established from the peer process by the kernel's word
/// (`SO_PEERCRED`, `/proc/PID`), never from what the client declares.
///
/// In the order the daemon looks for them:
///
/// 1. **Flatpak**: the app id from `/.flatpak-info` in the process's own root (the file
///    Flatpak puts in every sandbox, which the app cannot change): `flatpak:org.gnome.TextEditor`.
/// 2. **Snap**: the snap's name from the process's AppArmor label (`snap.NAME.APP`), which only
///    snapd's profiles carry: `snap:firefox`.
/// 3. Otherwise the **executable** the process runs (`/proc/PID/exe`): `exe:/usr/bin/nvim`
///    (bytes outside printable ASCII, `%` and `#` percent-encoded; the ` (deleted)` of a
///    program replaced while it runs left out).
///
/// The first two are sandboxes: what runs inside them cannot pass for another app. An
/// executable is a weaker identity — an unsandboxed process can run any program — which is
/// why it is never a boundary against the user's own unsandboxed processes (they can read the
/// files anyway), only between apps that do not try to be one another.
public struct VerifiedApp: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case flatpak, snap
        case executable = "exe"
    }

    public var kind: Kind
    /// The app id, the snap name, or the encoded executable path.
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// `flatpak:ID`, `snap:NAME` or `exe:PATH`: contains no `#`.
    public var identity: String { "\(kind.rawValue):\(value)" }
    public var description: String { identity }

    /// Confined by a sandbox: may not present dialogs, its own or others'.
    public var isSandboxed: Bool { kind != .executable }

    /// The app id in a `.flatpak-info` file: `name` in its `[Application]` group (or the
    /// `[Runtime]` group of a sandbox that runs a bare runtime).
    public static func flatpakApp(fromInfo bytes: [UInt8]) -> String? {
        var group = ""
        var found: [String: String] = [:]
        for rawLine in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces
            if line.hasPrefix("[") && line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "="), line[..<equals].trimmingSpaces == "name" {
                found[group] = found[group] ?? line[line.index(after: equals)...].trimmingSpaces
            }
        }
        guard let name = found["Application"] ?? found["Runtime"], isValidAppID(name) else { return nil }
        return name
    }

    /// The snap name in an AppArmor label (`snap.firefox.firefox (enforce)`,
    /// `snap.code.hook.configure`), or nil for any other label.
    public static func snapName(fromLabel label: String) -> String? {
        let profile = label.split(separator: " ").first.map(String.init) ?? label
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap" else { return nil }
        let name = String(parts[1])
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else { return nil }
        return name
    }

    /// An executable's path as an identity: percent-encoded so that no two paths give the same
    /// text and no path contains `#` (which separates the app from the client's name).
    public static func executable(_ path: FilePath) -> VerifiedApp {
        var bytes = path.bytes
        let deleted = Array(" (deleted)".utf8)
        if bytes.count > deleted.count && bytes.suffix(deleted.count).elementsEqual(deleted) { bytes.removeLast(deleted.count) }
        var text = ""
        for byte in bytes {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "#") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return VerifiedApp(kind: .executable, value: text)
    }

    /// Reverse-DNS, as Flatpak requires: letters, digits, `_`, `-` and `.`.
    private static func isValidAppID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && id.contains(".")
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
    }
}

/// Where a session's client comes from, as far as the server could verify it.
public struct ClientOrigin: Sendable {
    public enum Transport: String, Sendable {
        /// The process that spawned `wharf` (or a test serving itself): who it is cannot be
        /// checked, and it declares its app identity (`clientInfo.name`).
        case standardIO
        /// A peer of the daemon's socket.
        case socket
        /// A program that started `wharf --connect`, whose standard streams the bridge handed
        /// to the daemon.
        case bridge
    }

    public var transport: Transport
    /// The verified app; nil over standard I/O.
    public var app: VerifiedApp?
    /// The client's process: the socket's peer, or the process that started the bridge.
    public var pid: Int32?
    /// A bridged client's way to open files with its own rights (the bridge opens them).
    var opener: (any ClientFileOpener)?
    /// What the client's app (all its sessions together) may have waiting to be written to the
    /// daemon's presenter connection (`--max-presenter-bytes-per-app`); nil over standard I/O.
    var presenterBudget: ByteBudget?
    /// What the client's app and every app together may hold in the daemon's open exporters;
    /// nil over standard I/O, where the client's documents are its own files, read by path
    /// when they are written, and its bytes the only ones in the process.
    var documentBudgets: DocumentBudgets?
    /// The client does not see the files the daemon sees (another mount namespace or root: a
    /// container, bubblewrap, firejail, a chroot): confined like a sandboxed app, whatever
    /// program it runs.
    public var confined: Bool

    public init(transport: Transport, app: VerifiedApp?, pid: Int32?, confined: Bool = false) {
        self.transport = transport
        self.app = app
        self.pid = pid
        self.confined = confined
    }

    init(transport: Transport, app: VerifiedApp?, pid: Int32?, confined: Bool, opener: (any ClientFileOpener)?) {
        self.init(transport: transport, app: app, pid: pid, confined: confined)
        self.opener = opener
    }

    /// Why the client counts as sandboxed (it may not present dialogs, its own or others'), in
    /// words for an error message; nil when it does not.
    public var sandbox: String? {
        if let app, app.isSandboxed { return "\(app) runs in a sandbox" }
        if confined { return "\(app.map { "\($0)" } ?? "the client") sees other files than the daemon does (a container, bubblewrap or a chroot)" }
        return nil
    }

    public static let standardIO = ClientOrigin(transport: .standardIO, app: nil, pid: nil)

    /// True when the client reached us through the daemon (its identity was verified).
    public var isDaemonClient: Bool { transport != .standardIO }

    /// The key grants, bookmarks and remembered folders are kept under for a client that calls
    /// itself `name`.
    ///
    /// Over the daemon it is `APP#NAME`: the verified app is the boundary (no name a client
    /// declares reaches another app's), the name a partition within it (two programs run by one
    /// interpreter keep apart by name; any process of the app may still claim any of its
    /// names). Over standard I/O it is the name as declared, except that a name shaped like a
    /// verified identity is kept apart as `declared:NAME`, so that no declared name reaches a
    /// verified app's bookmarks in the shared store.
    public func ownerKey(name: String) -> String {
        if let app { return "\(app.identity)#\(name)" }
        for kind in ["exe:", "flatpak:", "snap:"] where name.hasPrefix(kind) { return "declared:" + name }
        return name
    }

    /// As the protocol says it (`initialize`'s result, `presenter/show`).
    func info(name: String) -> ClientIdentityInfo {
        ClientIdentityInfo(app: app?.identity, name: name, pid: pid.map(Int64.init))
    }
}

/// Who a daemon peer is, established from `/proc` as the connection is accepted (before the
/// client says anything, so that a process cannot connect, hand the socket to a child, exit,
/// and wait for its pid to be given to another program).
struct Peer: Sendable {
    let credentials: PeerCredentials
    /// The peer's `/proc` entry, opened at once: reads through it fail once the process is
    /// gone, instead of reading a newer one with the same pid.
    let record: ProcessRecord
    /// The peer's own app, or why it may not connect.
    let own: PeerIdentification.Outcome
    /// The peer runs this program (a `wharf --connect` bridge, when it greets as one).
    let runsThisProgram: Bool
    /// The peer does not see the daemon's files (``ProcessRecord/sharesFileSystemView()``).
    let confined: Bool
    /// The peer's parent when it was accepted (a bridge's client).
    let parentPID: Int32?

    /// Establishes the peer of `socket`, or says why it cannot be (it is gone already).
    static func accepted(_ socket: FileDescriptor, _ credentials: PeerCredentials) -> Result<Peer, PeerRefusal> {
        guard let record = try? ProcessRecord(pid: credentials.pid) else {
            return .failure(PeerRefusal(reason: "process \(credentials.pid) is gone"))
        }
        // The kernel's own handle on the peer, where there is one: it must still run, so that
        // the entry opened above is the peer's and not a newer process's with its pid.
        if PeerCredentials.peerIsRunning(socket) == false {
            return .failure(PeerRefusal(reason: "process \(credentials.pid) exited as it connected"))
        }
        return .success(Peer(credentials: credentials, record: record, own: PeerIdentification.identify(record),
                             runsThisProgram: PeerIdentification.runsThisProgram(record),
                             confined: !record.sharesFileSystemView(), parentPID: record.parentPID()))
    }
}

struct PeerRefusal: Error {
    var reason: String
}

/// Establishes who a daemon peer is, from `/proc`.
enum PeerIdentification {
    enum Outcome: Sendable {
        case app(VerifiedApp)
        /// The peer may not connect; the reason is logged.
        case refused(String)
    }

    /// The app of the process `record` is of (read through its `/proc` entry, opened first so
    /// that the readings are of one process).
    static func identify(_ record: ProcessRecord) -> Outcome {
        if let info = record.fileInRoot(".flatpak-info") {
            guard let id = VerifiedApp.flatpakApp(fromInfo: info) else {
                return .refused("process \(record.pid) runs in a Flatpak sandbox without an app id")
            }
            return .app(VerifiedApp(kind: .flatpak, value: id))
        }
        if let label = record.securityLabel(), let name = VerifiedApp.snapName(fromLabel: label) {
            return .app(VerifiedApp(kind: .snap, value: name))
        }
        guard let executable = record.executablePath() else {
            return .refused("the program process \(record.pid) runs cannot be read")
        }
        return .app(.executable(executable))
    }

    /// True when `record` runs this very program (a `wharf --connect` bridge): the same file,
    /// or the same path (a `wharf` upgraded since this daemon started runs the new file).
    static func runsThisProgram(_ record: ProcessRecord) -> Bool {
        if let theirs = record.executableIdentity(), let ours = ProcessRecord.ownExecutableIdentity(),
           theirs.device == ours.device && theirs.inode == ours.inode {
            return true
        }
        guard let theirs = record.executablePath(), let ours = ProcessRecord.ownExecutablePath() else { return false }
        return VerifiedApp.executable(theirs) == VerifiedApp.executable(ours)
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// What open exporters may hold in the daemon, counted from the moment a document is read until
/// its exporter ends: one app's share (all its connections together) and every app's together.
struct DocumentBudgets: Sendable {
    /// Open descriptors, one a `path` or `fd` document: `--max-open-documents-per-app`, and
    /// half the daemon's descriptor limit for all.
    var appFiles: ByteBudget
    var allFiles: ByteBudget
    /// The bytes of `text` and `base64` documents: `--max-document-bytes-per-app`, and four
    /// times that for all.
    var appBytes: ByteBudget
    var allBytes: ByteBudget
}
