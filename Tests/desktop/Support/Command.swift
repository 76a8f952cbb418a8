import WharfTestSupport

/// Runs a program to its end under `timeout(1)` and returns what it printed (rig helpers:
/// xdotool, import, dbus-send): WharfTestSupport's `ChildProcess`, with the rig's time limit.
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
        guard let child = try? ChildProcess(path: "timeout", arguments: ["-k", "2", String(timeoutSeconds)] + arguments,
                                            environment: environment, searchPath: true)
        else { return Output(status: -1, stdout: "", stderr: "cannot start \(arguments.first ?? "")") }
        let (status, stdout, stderr) = child.finish()
        return Output(status: status, bytes: binary ? stdout : [], stdout: binary ? "" : String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
