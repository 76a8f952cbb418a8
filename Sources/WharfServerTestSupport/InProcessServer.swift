import WharfJSONRPC
import WharfServer
import WharfSystem

/// A Wharf session served on a thread of the test process, over real pipes, through the same
/// host entry point as the `wharf` binary (`Server.serve`), so tests can reach into the server
/// while speaking the same bytes a spawned `wharf` would.
public final class InProcessServer: Sendable {
    public let clientWrites: Int32
    public let clientReads: Int32
    public let server: Server
    private let started = WaitableValue<ClientSession?>(nil)
    private let exitCode = WaitableValue<Int32?>(nil)

    public convenience init(options: ServerOptions) {
        self.init(server: try! Server(options: options, logger: .silent))
    }

    /// Another client of `server`: sessions of one server share its engine, its store and its
    /// presenters, as the clients of one daemon will.
    public init(server: Server) {
        let options = server.options
        let toServer = try! makePipe(), fromServer = try! makePipe()
        clientWrites = toServer.write
        clientReads = fromServer.read
        self.server = server
        let connection = Connection(
            input: FileDescriptor(taking: toServer.read),
            output: FileDescriptor(taking: fromServer.write),
            options: options.connectionOptions,
            logger: .silent
        )
        let (exitCode, started) = (self.exitCode, self.started)
        startThread {
            // The session keeps its events, so this one holds `started` weakly: `started` holds
            // the session, and a strong reference would make the two a cycle that outlives the
            // test (LeakSanitizer found it).
            let events = SessionEvents(started: { [weak started] session in started?.change { $0 = session } })
            let code = server.serve(connection, events: events)
            exitCode.change { $0 = code }
        }
    }

    /// The session, once the server has started it.
    public var session: ClientSession {
        started.wait { $0 }
    }

    public func waitForExit(seconds: Double) -> Int32? {
        exitCode.wait(until: Deadline(secondsFromNow: seconds)) { $0 }
    }
}
