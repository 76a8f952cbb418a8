import Glibc
import WharfJSON
import WharfSystem

/// `wharf --connect[=PATH]`: for an editor that can only spawn a language server, a process
/// that stands for the shared daemon.
///
/// The bridge connects to the daemon's socket (starting a daemon when none listens), hands it
/// its own standard input and output with the greeting (``BridgeGreeting``), and then only
/// waits: the daemon reads and writes the editor's pipes itself, exactly as `wharf` over
/// standard I/O would (same framing detection, same lifecycle), and when the session ends it
/// sends the session's exit status, which the bridge exits with. `SIGTERM` or `SIGINT` to the
/// bridge ends the session as they end `wharf`; the bridge killed outright ends it as end of
/// input does.
///
/// The client's identity is the bridge's parent, the program that started it, which the
/// daemon verifies itself from `/proc` (the bridge runs `wharf`, the same program as the
/// daemon, and its parent is the process it says started it).
public enum BridgeHost {
    /// How long to wait for a daemon this bridge started to listen.
    static let startupSeconds = 5.0
    /// The idle exit a daemon started by a bridge gets, unless the options say otherwise.
    static let startedDaemonIdleSeconds = 300

    public static func run(socket explicitPath: FilePath?, daemonArguments: [String]) -> Never {
        ProcessControl.ignoreBrokenPipes()
        ProcessControl.blockEndSignals()
        let path: FilePath
        do {
            if let explicitPath { path = explicitPath } else { path = try DaemonSocket.defaultPath() }
        } catch {
            fail(error.message)
        }
        let socket = connectOrStart(path, isDefault: explicitPath == nil, daemonArguments: daemonArguments)
        let greeting = BridgeGreeting(parentPID: ProcessControl.parentProcessID)
        do {
            try socket.send(greeting.bytes, passing: [ProcessControl.standardStream(0), ProcessControl.standardStream(1)])
        } catch {
            fail("cannot hand the standard streams to the daemon at \(path): \(error)")
        }
        // The daemon has them now: holding them here would keep the editor's pipes open.
        ProcessControl.detachStandardInputAndOutput()
        startThread {
            _ = ProcessControl.waitForEndSignal()
            try? socket.write(all: [UInt8(ascii: "T")])
        }
        serveDaemon(socket, path: path)
    }

    /// Answers the daemon (``BridgeControl``) until it sends the session's exit status.
    private static func serveDaemon(_ socket: FileDescriptor, path: FilePath) -> Never {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { (try? socket.read(into: $0)) ?? 0 }
            guard count > 0 else {
                ProcessControl.writeToStandardError("wharf: the daemon at \(path) went away before the session ended\n")
                ProcessControl.exit(1)
            }
            buffer += chunk[..<count]
            while let first = buffer.first {
                if first == UInt8(ascii: "S") {
                    guard buffer.count >= 2 else { break }
                    ProcessControl.exit(Int32(buffer[1]))
                } else if first == UInt8(ascii: "O") {
                    guard let end = buffer.firstIndex(of: 0) else { break }
                    let requested = FilePath(bytes: buffer[1..<end])
                    buffer.removeSubrange(...end)
                    answerOpen(requested, on: socket)
                } else if first == UInt8(ascii: "{") {
                    // Refused as it arrived (`tooManyClients`): the daemon says why in one line.
                    guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { break }
                    let refusal = (try? JSON.parse(Array(buffer[..<end])))?["error"]?["message"]?.stringValue
                    ProcessControl.writeToStandardError("wharf: the daemon at \(path) refused this connection: "
                        + "\(refusal ?? String(decoding: buffer[..<end], as: UTF8.self))\n")
                    ProcessControl.exit(1)
                } else {
                    ProcessControl.writeToStandardError("wharf: the daemon sent something a bridge does not understand\n")
                    ProcessControl.exit(1)
                }
            }
        }
    }

    /// Opens a file the daemon asks for, with this process's rights (the client's), and passes
    /// it back; never blocks on a FIFO.
    private static func answerOpen(_ path: FilePath?, on socket: FileDescriptor) {
        do throws(SystemError) {
            guard let path else { throw SystemError(code: EINVAL, operation: "open") }
            let file = try Syscalls.openForReading(path)
            try socket.send([UInt8(ascii: "o")], passing: [file])
        } catch {
            try? socket.write(all: Array("e\(error.code)\n".utf8))
        }
    }

    /// Connects to the daemon, or starts one and connects once it listens.
    private static func connectOrStart(_ path: FilePath, isDefault: Bool, daemonArguments: [String]) -> FileDescriptor {
        do {
            return try UnixSocket.connect(to: path)
        } catch where error.code == ENOENT || error.code == ECONNREFUSED {
            // Nobody listens: start a daemon below.
        } catch {
            fail("cannot connect to the daemon at \(path): \(error)")
        }
        guard let executable = ProcessRecord.ownExecutablePath() else { fail(howToStart(path, "this program cannot be found")) }
        do {
            if isDefault { try DaemonSocket.prepareDefaultDirectory(path.directory) }
        } catch {
            fail(howToStart(path, error.message))
        }
        // The socket's path goes over as its bytes: it need not be UTF-8.
        var arguments = [Array("--listen=".utf8) + path.bytes] + daemonArguments.map { ArgumentText.bytes($0) }
        if !daemonArguments.contains(where: { $0.hasPrefix("--idle-timeout") }) {
            arguments.append(Array("--idle-timeout=\(startedDaemonIdleSeconds)".utf8))
        }
        let log = path.directory.appending("wharf.log")
        do {
            // A service of its own: its own session, none of our pipes (an editor waiting for
            // end of file on our output must not wait for the daemon), its errors in the log.
            // Nobody waits for it; it outlives us.
            let logFile = try FileDescriptor.open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode: 0o600)
            _ = try Subprocess.spawn(executable.bytes, arguments: arguments, newSession: true,
                                     standardInput: .null, standardOutput: .null, standardError: .file(logFile))
        } catch {
            fail(howToStart(path, "starting one failed: \(error)"))
        }
        let deadline = Deadline(secondsFromNow: startupSeconds)
        while !deadline.hasPassed {
            if let socket = try? UnixSocket.connect(to: path) { return socket }
            ProcessControl.sleep(milliseconds: 10)
        }
        fail(howToStart(path, "the daemon started did not listen within \(Int(startupSeconds)) s (its log: \(log))"))
    }

    private static func howToStart(_ path: FilePath, _ reason: String) -> String {
        "no wharf daemon listens on \(path), and \(reason). Start one with `wharf --listen` "
            + "(or `systemctl --user enable --now wharf.socket`)"
    }

    private static func fail(_ message: String) -> Never {
        ProcessControl.writeToStandardError("wharf: \(message)\n")
        ProcessControl.exit(1)
    }
}
