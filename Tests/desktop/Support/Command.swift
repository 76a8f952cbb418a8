#if canImport(Glibc)
import Glibc
#endif
import WharfSystem

/// Runs a program to its end under `timeout(1)` and returns what it printed (rig helpers:
/// xdotool, import, dbus-send).
public enum Command {
    public struct Output: Sendable {
        public var status: Int32
        public var bytes: [UInt8] = []
        public var stdout: String
        public var stderr: String
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    @discardableResult
    public static func run(_ arguments: [String], timeoutSeconds: Int = 30, environment: [String: String] = [:],
                           binary: Bool = false) -> Output {
        guard let out = try? makePipe(), let err = try? makePipe() else { return Output(status: -1, stdout: "", stderr: "pipe") }
        let pid = try? Spawn.start("timeout", ["-k", "2", String(timeoutSeconds)] + arguments, environment: environment,
                                   searchPath: true) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, out.write, 1)
            posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        }
        close(out.write)
        close(err.write)
        guard let pid else {
            close(out.read); close(err.read)
            return Output(status: -1, stdout: "", stderr: "cannot start \(arguments.first ?? "")")
        }
        // Standard error is small; read it after standard output.
        let stdout = Spawn.readToEnd(out.read)
        let stderr = Spawn.readToEnd(err.read)
        close(out.read)
        close(err.read)
        let status = Spawn.wait(pid)
        return Output(status: status, bytes: binary ? stdout : [], stdout: binary ? "" : String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
