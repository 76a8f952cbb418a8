#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfTestSupport
import WharfJSONRPC
import WharfServer
import WharfSystem

/// A Wharf session served on a thread of the test process, over real pipes, so tests can reach
/// into the server while speaking the same bytes a spawned `wharf` would.
public final class InProcessServer: @unchecked Sendable {
    public let clientWrites: Int32
    public let clientReads: Int32
    private let serverReads: Int32
    private let serverWrites: Int32
    public let session: ClientSession
    private let exitCode = Locked<Int32?>(nil)

    public init(options: ServerOptions) {
        let toServer = try! makePipe(), fromServer = try! makePipe()
        serverReads = toServer.read
        clientWrites = toServer.write
        clientReads = fromServer.read
        serverWrites = fromServer.write
        let server = try! Server(options: options, logger: .silent)
        let connection = Connection(
            input: serverReads,
            output: serverWrites,
            options: Connection.Options(framing: options.framing, maxMessageBytes: options.maxMessageBytes),
            logger: .silent
        )
        let exitCode = self.exitCode
        let serverWrites = self.serverWrites
        session = ClientSession(server: server, connection: connection) { code in
            exitCode.withValue { $0 = code }
            // Closing our output is how the client sees the session end.
            close(serverWrites)
        }
        let session = self.session
        connection.start(session.handler) { reason in
            switch reason {
            case .truncated: session.finish(exitCode: 1, reason: "truncated input")
            default: session.finish(exitCode: session.exitCodeForEndOfInput, reason: "end of input")
            }
        }
    }

    public func waitForExit(seconds: Double) -> Int32? {
        var remaining = seconds
        while remaining >= 0 {
            if let code = exitCode.withValue({ $0 }) { return code }
            usleep(2_000)
            remaining -= 0.002
        }
        return nil
    }
}
