import WharfDBus
import WharfSystem

/// Runs `wharf portal`: connects to the session bus, serves the FileChooser backend, takes
/// its name, and serves until SIGTERM or SIGINT (each open dialog then ended, its call answered
/// with response 2) or the bus going away.
public enum PortalHost {
    public static func run(_ command: PortalCommand) -> Never {
        if command.check { ProcessControl.exit(PortalCheck.run(command)) }
        if let request = command.runDialog {
            guard let answer = command.answer else { StdioHost.fail("portal: --run-dialog needs --answer FILE") }
            ProcessControl.exit(runDialog(command, request: request, answer: answer))
        }
        ProcessControl.ignoreBrokenPipes()
        ProcessControl.blockEndSignals()
        var options = ServerOptions()
        options.presenter = command.presenter
        options.stateDirectory = command.stateDirectory
        options.logLevel = command.logLevel
        let logger = Logger(level: command.logLevel)
        let server: Server
        do {
            server = try Server(options: options, logger: logger)
        } catch {
            StdioHost.fail("portal: \(error.message)", status: error.exitStatus)
        }
        let address: String
        switch BusAddress.session(environment: BusAddress.processEnvironment()) {
        case .success(let found): address = found
        case .failure(let error): StdioHost.fail("portal: no session bus: \(error.message)", status: 1)
        }
        let lost = OneShot<BusError>()
        let connection: BusConnection
        let opened = OneShot<Result<BusConnection, BusError>>()
        BusConnection.open(address: address, description: "wharf-portal", timeoutMs: 5000,
                           onDisconnect: { lost.set($0) }, completion: { opened.set($0) })
        switch opened.wait() {
        case .success(let open): connection = open
        case .failure(let error): StdioHost.fail("portal: \(error.message)", status: 1)
        }
        // auto: the daemon's presenter connection first, when one is registered.
        let auto = command.presenter == .firstUsable(PortalCommand.autoPresenters) && !command.terminalWindow
        let backend = PortalBackend(connection: connection, server: server, drawing: drawing(command, logger: logger),
                                    daemonSocket: auto ? try? DaemonSocket.defaultPath() : nil)
        backend.start()
        switch connection.requestName(PortalBackend.busName) {
        case .success(true):
            logger.info("portal: serving \(PortalBackend.busName) on \(address)")
        case .success(false):
            StdioHost.fail("portal: another process owns \(PortalBackend.busName) on this bus", status: 1)
        case .failure(let error):
            StdioHost.fail("portal: cannot own \(PortalBackend.busName): \(error.message)", status: 1)
        }
        startThread {
            let number = ProcessControl.waitForEndSignal()
            lost.set(BusError(name: BusError.Names.failed, message: "signal \(number)"))
        }
        let reason = lost.wait()
        logger.info("portal: stopping: \(reason.message)")
        backend.stop(timeoutMs: 3000)
        // The answers are on their way; the connection's thread sends them before closing.
        connection.close(waitingUpTo: 1000)
        server.close()
        ProcessControl.exit(0)
    }

    /// Who draws: the terminal picker in a terminal window when asked for (`--presenter
    /// terminal`), or with `auto` when this wharf has a terminal presenter and a terminal
    /// window can be opened here; else the in-process presenter `--presenter` says.
    static func drawing(_ command: PortalCommand, logger: Logger) -> PortalDrawing {
        let auto = command.presenter == .firstUsable(PortalCommand.autoPresenters)
        let hasTerminalPresenter = (try? CommandLineParser.presenterSetting("terminal")) != nil
        guard command.terminalWindow || (auto && hasTerminalPresenter) else { return .inProcess }
        switch PortalTerminal.find(explicit: command.terminal, environment: ProcessControl.environmentVariables()) {
        case .success(let terminal):
            guard let wharf = ProcessRecord.ownExecutablePath() else {
                StdioHost.fail("portal: cannot find this program's own path (/proc/self/exe) to run in a terminal window", status: 1)
            }
            logger.info("portal: dialogs open in \(String(decoding: terminal.program, as: UTF8.self)) windows")
            return .terminalWindow(terminal, wharf: wharf.bytes)
        case .failure(let problem):
            if command.terminalWindow { StdioHost.fail("portal: --presenter terminal: \(problem.message)", status: 1) }
            logger.info("portal: no terminal window (\(problem.message)); dialogs are zenity's or kdialog's")
            return .inProcess
        }
    }
}
