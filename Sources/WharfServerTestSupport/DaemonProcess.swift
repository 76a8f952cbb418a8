import Glibc
import WharfJSON
import WharfJSONRPC
import WharfSystem
import WharfTestSupport

/// A `wharf --listen` daemon spawned for a test, on a socket in a scratch directory of its
/// own, with its state in a fresh `XDG_STATE_HOME` unless the environment says otherwise.
public final class DaemonProcess: Sendable {
    public let child: ChildProcess
    public let scratch: ScratchDirectory
    public let socketPath: FilePath
    public let environment: [String: String]

    /// Starts the daemon with `arguments` (after `--listen=PATH`) and waits until it accepts
    /// connections.
    public init(_ arguments: [String] = [], environment: [String: String] = [:], removing: Set<String> = [],
                scratch: ScratchDirectory? = nil) throws {
        let scratch = scratch ?? ScratchDirectory("wharf-daemon")
        self.scratch = scratch
        socketPath = scratch.path("d.sock")
        var environment = environment
        if environment["XDG_STATE_HOME"] == nil { environment["XDG_STATE_HOME"] = scratch.path("state").description }
        self.environment = environment
        child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--listen=\(socketPath)"] + arguments,
                                 environment: environment, removing: removing)
        let deadline = Deadline(secondsFromNow: 20)
        while true {
            if let probe = try? UnixSocket.connect(to: socketPath) {
                probe.close()
                break
            }
            if child.waitForExit(seconds: 0) != nil || deadline.hasPassed {
                throw DaemonStartFailure(message: "wharf --listen did not start: \(child.errorsSoFar())")
            }
            ProcessControl.sleep(milliseconds: 5)
        }
    }

    /// A new client connection.
    public func connect(framing: Framing = .lsp) throws -> WireClient {
        try WireClient.connect(to: socketPath, framing: framing)
    }

    /// A client that has said `initialize` (as `name`, with `capabilities`, in `role`).
    public func client(_ name: String = "daemon-tests", capabilities: JSON = [:], role: String? = nil,
                       framing: Framing = .lsp) throws -> WireClient {
        let client = try connect(framing: framing)
        var params: JSON = ["clientInfo": ["name": .string(name)], "capabilities": capabilities]
        if let role, case .object(var members) = params {
            members["role"] = .string(role)
            params = .object(members)
        }
        client.initialize(params)
        return client
    }

    /// A client through `wharf --connect`, started by `launcher` when given (`["/usr/bin/timeout",
    /// "60"]`: then the bridge's parent, and so the client's app, is that program), else by this
    /// test process.
    public func bridge(launcher: [String] = [], framing: Framing = .lsp) throws -> WireClient {
        let bridge = [wharfExecutablePath(), "--connect=\(socketPath)"]
        let command = launcher + bridge
        let child = try ChildProcess(path: command[0], arguments: Array(command.dropFirst()), environment: environment)
        return WireClient(server: .process(child), framing: framing, output: child.stdin, input: child.stdout, schema: .wharf)
    }

    public func terminate() { child.kill(SIGTERM) }

    public func waitForExit(seconds: Double = 20) -> Int32? { child.waitForExit(seconds: seconds) }

    /// What the daemon logged so far.
    public func log() -> String { child.errorsSoFar() }
}

public struct DaemonStartFailure: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension WireClient {
    /// A client of the daemon listening on `path`.
    public static func connect(to path: FilePath, framing: Framing = .lsp) throws -> WireClient {
        let socket = try UnixSocket.connect(to: path)
        socket.relinquish()  // the client closes it once its reader has seen the end
        return WireClient(server: .socket, framing: framing, output: socket.raw, input: socket.raw, schema: .wharf)
    }
}
