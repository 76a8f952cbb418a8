import Glibc
import WharfSystem

/// A child process with pipes on its standard streams: the one way tests start programs.
///
/// `stdin`, `stdout` and `stderr` are our ends (we write the child's input, read its output),
/// owned by this object and closed exactly once: by `close…`, or when it goes away (which also
/// kills a child still running).
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let input: FileDescriptor
    private let output: FileDescriptor
    private let errors: FileDescriptor
    private let exit = Locked<Int32?>(nil)
    /// Bytes of standard output read past the last line `waitForLine` returned.
    private let pending = Locked<[UInt8]>([])
    /// Something that must live as long as the child (its scratch state directory).
    public var keepAlive: AnyObject?

    /// Starts `path` with `arguments`; `environment` entries are added to ours, and those named
    /// in `removing` left out. With
    /// `searchPath`, `path` is looked up on `PATH`. With `mergeErrors`, standard error goes to
    /// the standard output pipe. `passing` gives the child more descriptors, by number.
    public init(
        path: String, arguments: [String], environment: [String: String] = [:], removing: Set<String> = [],
        searchPath: Bool = false, mergeErrors: Bool = false, passing inherited: [Int32: FileDescriptor] = [:]
    ) throws(SystemError) {
        // Writing to a child that has exited must be an error to handle, not death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let inputPipe = try makePipe(), outputPipe = try makePipe(), errorPipe = try makePipe()
        let ours = (FileDescriptor(taking: inputPipe.write), FileDescriptor(taking: outputPipe.read),
                    FileDescriptor(taking: errorPipe.read))
        let theirs = [FileDescriptor(taking: inputPipe.read), FileDescriptor(taking: outputPipe.write),
                      FileDescriptor(taking: errorPipe.write)]
        pid = try Spawn.start(path, arguments, environment: environment, removing: removing, searchPath: searchPath) { actions in
            posix_spawn_file_actions_adddup2(&actions, theirs[0].raw, 0)
            posix_spawn_file_actions_adddup2(&actions, theirs[1].raw, 1)
            posix_spawn_file_actions_adddup2(&actions, mergeErrors ? theirs[1].raw : theirs[2].raw, 2)
            // `passing`: descriptors the child gets as these numbers (systemd's activation
            // hands a socket over as descriptor 3 this way).
            for (number, descriptor) in inherited { posix_spawn_file_actions_adddup2(&actions, descriptor.raw, number) }
        }
        for end in theirs { end.close() }
        (input, output, errors) = ours
    }

    /// Our end of the child's standard input.
    public var stdin: Int32 { input.raw }
    /// Our end of the child's standard output.
    public var stdout: Int32 { output.raw }
    /// Our end of the child's standard error.
    public var stderr: Int32 { errors.raw }

    public func closeStdin() { input.close() }
    public func closeStdout() { output.close() }

    /// Writes to the child's standard input.
    public func send(_ bytes: [UInt8]) throws(SystemError) { try input.write(all: bytes) }

    /// Everything the child writes to standard output until it closes it.
    public func readOutput() -> [UInt8] {
        pending.withValue { $0 } + ((try? output.readToEnd()) ?? [])
    }

    public func readOutputText() -> String { String(decoding: readOutput(), as: UTF8.self) }

    /// Everything the child writes to standard error until it closes it.
    public func readErrors() -> String { String(decoding: (try? errors.readToEnd()) ?? [], as: UTF8.self) }

    /// What the child has written to standard error so far, without waiting for more.
    public func errorsSoFar() -> String {
        let flags = fcntl(errors.raw, F_GETFL)
        _ = fcntl(errors.raw, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(errors.raw, F_SETFL, flags) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { (try? errors.read(into: $0)) ?? -1 }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads standard output until a line starting with `prefix` arrives (returned without its
    /// newline), or the output ends, or `timeout` seconds pass (a guard against a hung test,
    /// not a time limit being tested).
    public func waitForLine(startingWith prefix: String, timeout: Double = 60) -> String? {
        let deadline = Deadline(secondsFromNow: timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !deadline.hasPassed {
            let found: String? = pending.withValue { pending in
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line.hasPrefix(prefix) { return line }
                }
                return nil
            }
            if let found { return found }
            var poller = pollfd(fd: output.raw, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return nil }
            if poller.revents == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { (try? output.read(into: $0)) ?? 0 }
            if count == 0 { return nil }
            pending.withValue { $0 += buffer[..<count] }
        }
        return nil
    }

    /// Waits up to `seconds` for the child to exit; its exit status, or nil if it has not.
    /// A child killed by a signal reports 128 + the signal number, as shells do.
    public func waitForExit(seconds: Double) -> Int32? {
        if let code = exit.withValue({ $0 }) { return code }
        let deadline = Deadline(secondsFromNow: seconds)
        repeat {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let code = Spawn.exitCode(fromWaitStatus: status)
                exit.withValue { $0 = code }
                return code
            }
            usleep(2_000)
        } while !deadline.hasPassed
        return nil
    }

    /// Waits for the child to exit, however long it takes.
    @discardableResult
    public func wait() -> Int32 {
        if let code = exit.withValue({ $0 }) { return code }
        let code = Spawn.wait(pid)
        exit.withValue { $0 = code }
        return code
    }

    public func kill(_ signal: Int32 = SIGKILL) { _ = Glibc.kill(pid, signal) }

    deinit {
        if exit.withValue({ $0 }) == nil {
            _ = Glibc.kill(pid, SIGKILL)
            _ = waitForExit(seconds: 2)
        }
    }
}

/// Runs a program to its end with no input; its exit status and output (standard error
/// merged into standard output unless `separateErrors`). Status 127 when it could not start.
@discardableResult
public func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], searchPath: Bool = false
) -> (status: Int32, output: String) {
    guard let child = try? ChildProcess(
        path: program, arguments: arguments, environment: environment, searchPath: searchPath, mergeErrors: true)
    else { return (127, "") }
    child.closeStdin()
    let output = child.readOutputText()
    return (child.wait(), output)
}
