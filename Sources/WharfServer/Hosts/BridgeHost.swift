import Glibc
import WharfSystem

/// `wharf --connect [PATH]`: for an editor that can only spawn a language server, a process
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
        var status: UInt8 = 0
        let count = withUnsafeMutableBytes(of: &status) { (try? socket.read(filling: $0)) ?? 0 }
        guard count == 1 else {
            ProcessControl.writeToStandardError("wharf: the daemon at \(path) went away before the session ended\n")
            ProcessControl.exit(1)
        }
        ProcessControl.exit(Int32(status))
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
        var arguments = ["--listen=\(path)"] + daemonArguments
        if !daemonArguments.contains(where: { $0.hasPrefix("--idle-timeout") }) {
            arguments.append("--idle-timeout=\(startedDaemonIdleSeconds)")
        }
        let log = path.directory.appending("wharf.log")
        do {
            _ = try Spawn.startDetached(executable.description, arguments, logFile: log)
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
