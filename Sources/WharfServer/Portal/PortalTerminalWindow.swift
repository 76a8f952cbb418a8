import Glibc
import WharfJSON
import WharfSystem

/// A portal call's dialog drawn by the terminal picker in a terminal window of its own: the
/// window runs `wharf portal --run-dialog REQUEST --answer FILE --presenter terminal`, which is
/// the same engine in another process (so the same checks), and writes how the dialog ended to
/// FILE (in `$XDG_RUNTIME_DIR/wharf`, private to the user). Closing the window (the call's
/// `Close`, or the person) ends the dialog; a window that ends without an answer is response 2.
struct PortalTerminalWindow {
    let terminal: PortalTerminal
    /// The `wharf` to run in the window: this very program.
    let wharf: [UInt8]
    let logger: Logger

    private static let counter = Locked<UInt64>(0)

    /// `opened` gets the window's process (to close it) and answers whether the call was
    /// closed meanwhile.
    func run(request: PortalRequest, clientName: String, title: String, stateDirectory: FilePath?,
             opened: (Subprocess) -> Bool) -> PortalOutcome {
        let environment = ProcessControl.environmentVariables()
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil } ?? "/tmp"
        let folder = runtime.appending("wharf")
        do {
            try Syscalls.makeDirectories(folder, mode: 0o700)
        } catch {
            return .failed("cannot make \(folder) for the terminal window's answer: \(error)")
        }
        let number = Self.counter.withValue { $0 += 1; return $0 }
        let answer = folder.appending("portal-\(ProcessControl.processID)-\(number).json")
        try? UnixSocket.remove(answer)
        let description: JSON = ["method": .string(request.method), "params": request.params, "client": .string(clientName)]
        var command = [String(decoding: wharf, as: UTF8.self), "portal", "--run-dialog", description.jsonText,
                       "--answer", answer.description, "--presenter", "terminal"]
        if let stateDirectory { command += ["--state-dir", stateDirectory.description] }
        let window: Subprocess
        do {
            window = try Subprocess.spawn(terminal.program, arguments: terminal.arguments(title: title, command: command).map { Array($0.utf8) },
                                          newProcessGroup: true, standardInput: .null)
        } catch {
            return .failed("cannot open a terminal window (\(String(decoding: terminal.program, as: UTF8.self))): \(error)")
        }
        if opened(window) { window.signal(SIGTERM) }
        let ending = window.wait()
        defer { try? UnixSocket.remove(answer) }
        guard let file = try? FileDescriptor.open(answer, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) else {
            return .ended("the terminal window closed without an answer (\(ending))")
        }
        defer { file.close() }
        guard let bytes = try? file.readToEnd(limit: 16 << 20), let json = try? JSON.parse(bytes),
              let outcome = PortalOutcome(json: json)
        else { return .failed("the terminal window's answer could not be read") }
        return outcome
    }
}

extension PortalHost {
    /// `wharf portal --run-dialog REQUEST --answer FILE`: one portal dialog, in this process (a
    /// terminal window's), its outcome written to FILE. Exit 0 when it was written.
    static func runDialog(_ command: PortalCommand, request text: String, answer: FilePath) -> Int32 {
        var options = ServerOptions()
        options.stateDirectory = command.stateDirectory
        options.logLevel = command.logLevel
        var outcome: PortalOutcome
        if command.terminalWindow, let terminal = try? CommandLineParser.presenterSetting("terminal") {
            options.presenter = terminal
        } else if command.terminalWindow {
            return write(.failed("this wharf has no terminal presenter"), to: answer)
        } else {
            options.presenter = command.presenter
        }
        guard let json = try? JSON.parse(text), let method = json["method"]?.stringValue, let params = json["params"],
              let client = json["client"]?.stringValue, let request = try? PortalRequest(method: method, params: params)
        else { return write(.failed("--run-dialog: not a portal dialog request"), to: answer) }
        let logger = Logger(level: command.logLevel)
        transient(request, logger: logger)
        do {
            let server = try Server(options: options, logger: logger)
            defer { server.close() }
            var session: LocalClient?
            outcome = PortalSession.run(server: server, clientName: client, request: request,
                                        started: { session = $0 }, presented: { _ in false })
            session?.close()
        } catch {
            outcome = .failed(error.message)
        }
        return write(outcome, to: answer)
    }

    /// The window this runs in made transient for the app's (`x11:XID`), where the terminal
    /// names its window in `$WINDOWID` (xterm does). Best effort: the dialog runs either way.
    private static func transient(_ request: PortalRequest, logger: Logger) {
        let parent: String?
        switch request {
        case .importer(let importer): parent = importer.parentWindow
        case .exporter(let exporter): parent = exporter.parentWindow
        }
        guard let parent, parent.hasPrefix("x11:") else { return }
        let environment = ProcessControl.environmentVariables()
        var hex = parent.dropFirst(4)
        if hex.hasPrefix("0x") { hex = hex.dropFirst(2) }
        guard let parentID = UInt32(hex, radix: 16), let window = environment["WINDOWID"].flatMap({ UInt32($0) }) else {
            logger.info("portal: the terminal window is not made transient for \(parent): the terminal names no window ($WINDOWID)")
            return
        }
        if let problem = PortalTransientHint.set(window: window, parent: parentID, environment: environment) {
            logger.info("portal: the terminal window is not made transient for \(parent): \(problem)")
        }
    }

    private static func write(_ outcome: PortalOutcome, to answer: FilePath) -> Int32 {
        do {
            let file = try FileDescriptor.open(answer, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o600)
            defer { file.close() }
            try file.write(all: outcome.json.serialized())
            return 0
        } catch {
            Logger(level: .error).error("portal: cannot write the dialog's answer to \(answer): \(error)")
            return 2
        }
    }
}
