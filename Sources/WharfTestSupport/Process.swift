#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// A child process with pipes on its standard streams.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// Our ends: we write the child's stdin, read its stdout and stderr.
    public let stdin: Int32
    public let stdout: Int32
    public let stderr: Int32
    private let exit = Locked<Int32?>(nil)
    /// Something that must live as long as the child (its scratch state directory).
    public var keepAlive: AnyObject?
    /// Our descriptors still open. Each is closed exactly once: closing one twice could close a
    /// descriptor number another test has been given meanwhile.
    private let open = Locked<Set<Int32>>([])

    /// Starts `path` with `arguments`; `environment` entries are added to ours.
    public init(path: String, arguments: [String], environment: [String: String] = [:]) throws(SystemError) {
        // Writing to a child that has exited must be an error to handle, not death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let inputPipe = try makePipe(), outputPipe = try makePipe(), errorPipe = try makePipe()
        let spawned = Result { () throws(SystemError) in
            try Spawn.start(path, arguments, environment: environment) { actions in
                posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
                posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
                posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
            }
        }
        Glibc.close(inputPipe.read); Glibc.close(outputPipe.write); Glibc.close(errorPipe.write)
        switch spawned {
        case .success(let child):
            pid = child
        case .failure(let error):
            Glibc.close(inputPipe.write); Glibc.close(outputPipe.read); Glibc.close(errorPipe.read)
            throw error
        }
        stdin = inputPipe.write
        stdout = outputPipe.read
        stderr = errorPipe.read
        open.withValue { $0 = [stdin, stdout, stderr] }
    }

    /// Closes one of our descriptors, once.
    public func close(_ descriptor: Int32) {
        let wasOpen = open.withValue { $0.remove(descriptor) != nil }
        if wasOpen { _ = Glibc.close(descriptor) }
    }

    /// Waits up to `seconds` for the child to exit; its exit status, or nil if it has not.
    /// A child killed by a signal reports 128 + the signal number, as shells do.
    public func waitForExit(seconds: Double) -> Int32? {
        if let code = exit.withValue({ $0 }) { return code }
        var remaining = seconds
        while remaining >= 0 {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let code = Spawn.exitCode(fromWaitStatus: status)
                exit.withValue { $0 = code }
                return code
            }
            usleep(2_000)
            remaining -= 0.002
        }
        return nil
    }

    public func kill(_ signal: Int32 = SIGKILL) { _ = Glibc.kill(pid, signal) }

    public func closeStdin() { close(stdin) }
    public func closeStdout() { close(stdout) }

    deinit {
        if exit.withValue({ $0 }) == nil {
            _ = Glibc.kill(pid, SIGKILL)
            _ = waitForExit(seconds: 2)
        }
        for descriptor in open.withValue({ $0 }) { _ = Glibc.close(descriptor) }
    }
}

/// Where the built `wharf` is: `$WHARF`, else next to the running test bundle in `.build/`.
public func wharfExecutablePath() -> String {
    if let override = getenv("WHARF") { return String(cString: override) }
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    return FilePath.join(FilePath.directory(of: executable), "wharf")
}
