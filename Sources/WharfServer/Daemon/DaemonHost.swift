import Glibc
import WharfJSONRPC
import WharfSystem

/// `wharf --listen`: one daemon for the user's session, serving every client that connects to
/// its Unix socket, each in a session of its own (``Server/serve(_:origin:events:)``, the same
/// host entry point as standard I/O).
///
/// What belongs to the process stays here: the socket (bound, or inherited from systemd's
/// `wharf.socket` through `LISTEN_FDS`), who may connect (the same user, by `SO_PEERCRED`;
/// the app established from the peer), `SIGTERM` (every session ends as its client is owed,
/// clients before the presenter connection, then the daemon exits 0) and the idle exit.
public enum DaemonHost {
    public static func run(_ options: ServerOptions, socket explicitPath: FilePath?) -> Never {
        ProcessControl.ignoreBrokenPipes()
        // Before any thread exists, so every later thread inherits the mask.
        ProcessControl.blockEndSignals()
        let descriptorLimit = ProcessControl.raiseDescriptorLimit()
        SpinBeforeSleep.microseconds = options.spinMicroseconds
        var options = options
        options.acceptsPresenterConnections = true
        let logger = StdioHost.makeLogger(options)

        let listener: FileDescriptor
        var bound: DaemonSocket?
        switch SocketActivation.passed() {
        case .invalid(let message):
            StdioHost.fail("socket activation: \(message)")
        case .descriptors(let count):
            let passed = SocketActivation.takeDescriptors()
            guard count == 1, let socket = passed.first, UnixSocket.isListeningStreamSocket(socket) else {
                StdioHost.fail("socket activation: expected one listening Unix stream socket (LISTEN_FDS=1), got \(count) descriptor(s)")
            }
            do { try socket.setNonBlocking() } catch { StdioHost.fail("socket activation: \(error)") }
            listener = socket
            logger.info("serving the socket systemd passed (descriptor 3)")
        case .none:
            do throws(StartupError) {
                let path: FilePath
                if let explicitPath { path = explicitPath } else { path = try DaemonSocket.defaultPath() }
                let socket = try DaemonSocket.bind(path, isDefault: explicitPath == nil, logger: logger)
                listener = socket.listener
                bound = socket
                logger.info("listening on \(path)")
            } catch {
                StdioHost.fail(error.message)
            }
        }
        let server: Server
        do {
            server = try Server(options: options, logger: logger)
        } catch {
            bound?.remove()
            StdioHost.fail(error.message, status: error.exitStatus)
        }
        // Half the descriptors for documents held open, the rest for connections, the state
        // database, the files that imports and reads open.
        let openDocuments = ByteBudget(limit: max(64, Int(clamping: descriptorLimit / 2)))
        let documentBytes = ByteBudget(limit: 4 * options.maxDocumentBytesPerApp)
        Daemon(server: server, listener: listener, bound: bound, openDocuments: openDocuments, documentBytes: documentBytes,
               logger: logger).run()
    }
}
