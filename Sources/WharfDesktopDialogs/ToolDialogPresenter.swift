import Glibc
import WharfSystem

/// File dialogs through zenity or kdialog, the fallbacks where the portal is missing or broken.
///
/// Each dialog is a child process in a group of its own (WharfSystem's `Subprocess`: byte
/// arguments, signals at their defaults, nothing inherited but its standard streams) with an
/// environment that cannot hang it (``ChildEnvironment``), watched by a thread of its own that
/// reads its output and waits for it, so nothing blocks the caller and no lock is held while
/// reading.
/// `cancel` kills the whole group (SIGTERM, then SIGKILL after a grace period) and the result
/// is `.cancelled(reason)` once the process is gone, so the window is gone too.
public final class ToolDialogPresenter: DesktopPresenter {
    public let kind: DesktopPresenterKind
    /// The program's absolute path.
    public let program: [UInt8]
    private let environment: [[UInt8]]
    private let killGraceSeconds: Double

    /// - Parameters:
    ///   - kind: `.zenity` or `.kdialog`.
    ///   - program: its absolute path (see ``locate(_:environment:)``).
    ///   - environment: the parent environment the child's is built from (``ChildEnvironment``).
    public init(kind: DesktopPresenterKind, program: [UInt8], environment: [[UInt8]] = ChildEnvironment.current(),
                killGraceSeconds: Double = 2) {
        precondition(kind != .portal, "the portal is PortalFileChooser")
        self.kind = kind
        self.program = program
        self.environment = ChildEnvironment.build(for: kind, from: environment)
        self.killGraceSeconds = killGraceSeconds
    }

    /// The command line for `request` (without the program).
    public func arguments(for request: DesktopDialogRequest) -> [[UInt8]] {
        kind == .kdialog ? KDialogArguments.build(request) : ZenityArguments.build(request)
    }

    public func present(_ request: DesktopDialogRequest, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession {
        let kind = kind
        return run(arguments(for: request), completion: completion) { status, stdout, stderr in
            ToolExit.result(kind: kind, status: status, stdout: stdout, stderr: stderr, request: request)
        }
    }

    /// The command line for `question` (without the program).
    public func arguments(for question: DesktopReplaceQuestion) -> [[UInt8]] {
        kind == .kdialog ? KDialogArguments.question(question) : ZenityArguments.question(question)
    }

    /// A question dialog: zenity's `--question`, kdialog's `--warningyesno`.
    public func askToReplace(_ question: DesktopReplaceQuestion, completion: @escaping @Sendable (DesktopDialogResult) -> Void) -> DesktopDialogSession? {
        let kind = kind
        return run(arguments(for: question), completion: completion) { status, _, stderr in
            ToolExit.answer(kind: kind, status: status, stderr: stderr)
        }
    }

    /// Runs the program with `arguments` in a session; `interpret` turns how it ended into the result.
    private func run(_ arguments: [[UInt8]], completion: @escaping @Sendable (DesktopDialogResult) -> Void,
                     interpret: @escaping @Sendable (ToolExit.Status, [UInt8], [UInt8]) -> DesktopDialogResult) -> DesktopDialogSession {
        let session = DesktopDialogSession(completion: completion)
        let child = Locked<Subprocess?>(nil)
        let grace = killGraceSeconds
        session.onCancel { _ in
            // Caller's thread: signal and leave; the watcher thread delivers the result.
            guard let process = child.withValue({ $0 }) else { return }
            process.signal(SIGTERM)
            startThread {
                ProcessControl.sleep(milliseconds: Int(grace * 1000))
                process.signal(SIGKILL)
            }
        }
        let kind = kind, program = program, environment = environment
        startThread {
            if session.cancelRequested != nil { session.finish(.cancelled(.caller)); return }
            let process: Subprocess
            do {
                process = try Subprocess.spawn(program, arguments: arguments, environment: environment, newProcessGroup: true,
                                               standardInput: .null, standardOutput: .pipe, standardError: .pipe)
            } catch {
                session.finish(.failed("cannot start \(kind.rawValue): \(error)"))
                return
            }
            child.withValue { $0 = process }
            // A cancel that came while spawning found no process to signal.
            if session.cancelRequested != nil { process.signal(SIGTERM) }
            // Its output until it exits; then whatever it left running in its group goes with
            // it (the group id is still ours: the leader is not reaped until after the kill).
            let (stdout, stderr) = process.readUntilExit(errorLimit: 8192)
            process.signal(SIGKILL)
            let status = process.wait()
            session.finish(interpret(status, stdout, stderr))
        }
        return session
    }

    // MARK: Finding and probing

    /// The program for `kind` on `PATH`, as an absolute path.
    public static func locate(_ kind: DesktopPresenterKind, environment: [String: String]) -> [UInt8]? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        // Split as bytes: PATH names directories, and splitting the String would walk it by
        // grapheme clusters (a tenth of a start-up's instructions for two searches).
        for directory in Array(path.utf8).split(separator: UInt8(ascii: ":")) where directory.first == UInt8(ascii: "/") {
            let candidate = FilePath(bytes: directory).map { $0.appending(kind.rawValue) }
            if let candidate, candidate.isExecutableFile { return candidate.bytes }
        }
        return nil
    }

    /// Whether `kind` can show a dialog here: installed on `PATH`, and a display to show it on.
    /// Immediate (no process is started).
    public static func probe(_ kind: DesktopPresenterKind, environment: [String: String]) -> DesktopPresenterProbe {
        guard let program = locate(kind, environment: environment) else {
            let package = kind == .zenity ? "zenity" : "kdialog"
            return DesktopPresenterProbe(kind: kind, problem: "\(kind.rawValue) is not installed (no \(kind.rawValue) on PATH; the Debian package is \(package))")
        }
        let display = environment["DISPLAY"].map { !$0.isEmpty } ?? false
        let wayland = environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } ?? false
        guard display || wayland else {
            return DesktopPresenterProbe(kind: kind, problem: "\(kind.rawValue) needs a graphical session, but neither DISPLAY nor WAYLAND_DISPLAY is set")
        }
        return DesktopPresenterProbe(kind: kind, detail: String(decoding: program, as: UTF8.self))
    }
}
