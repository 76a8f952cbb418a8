import Glibc
import WharfSystem

/// A child process with pipes on its standard streams: the one way tests start programs,
/// over WharfSystem's `Subprocess` (so a child inherits nothing but those streams, and starts
/// with its signals at their defaults whatever the test runner blocked).
///
/// `stdin`, `stdout` and `stderr` are our ends (we write the child's input, read its output),
/// owned by this object and closed exactly once: by `close…`, or when it goes away (which also
/// kills a child still running).
///
/// `@unchecked Sendable`: `keepAlive` is set by the test that owns the child before it shares it; the rest is set in `init` or behind `Locked`.
public final class ChildProcess: @unchecked Sendable {
    /// The running program.
    public let process: Subprocess
    public var pid: pid_t { process.pid }
    private let input: FileDescriptor
    private let output: FileDescriptor
    /// Nil when standard error goes to the standard output pipe.
    private let errors: FileDescriptor?
    /// Bytes of standard output read past the last line `waitForLine` returned.
    private let pending = Locked<[UInt8]>([])
    /// Something that must live as long as the child (its scratch state directory).
    public var keepAlive: AnyObject?

    /// Starts `path` with `arguments`; `environment` entries are added to ours, and those named
    /// in `removing` left out. With `searchPath`, `path` is looked up on `PATH`. With
    /// `mergeErrors`, standard error goes to the standard output pipe. `passing` gives the
    /// child more descriptors, by number (systemd's activation hands a socket over as 3).
    public init(
        path: String, arguments: [String], environment: [String: String] = [:], removing: Set<String> = [],
        searchPath: Bool = false, mergeErrors: Bool = false, passing inherited: [Int32: FileDescriptor] = [:]
    ) throws(SystemError) {
        // Writing to a child that has exited must be an error to handle, not death by SIGPIPE.
        ProcessControl.ignoreBrokenPipes()
        process = try Subprocess.spawn(
            path, arguments: arguments, environment: ProcessControl.environmentEntries(adding: environment, removing: removing),
            searchPath: searchPath,
            standardInput: .pipe, standardOutput: .pipe, standardError: mergeErrors ? .standardOutput : .pipe,
            passing: inherited)
        input = process.standardInput!
        output = process.standardOutput!
        errors = process.standardError
    }

    /// Our end of the child's standard input.
    public var stdin: Int32 { input.raw }
    /// Our end of the child's standard output.
    public var stdout: Int32 { output.raw }
    /// Our end of the child's standard error; -1 when it was merged into standard output.
    public var stderr: Int32 { errors?.raw ?? -1 }

    public func closeStdin() { input.close() }
    public func closeStdout() { output.close() }

    /// Descriptors of their own for our ends of the child's standard input and error, for a
    /// thread that may outlive the test's use of this object: the thread's number stays this
    /// pipe's until the thread closes it. A thread writing to `stdin`'s number after the test let
    /// the child go (the number closed, and taken by the next pipe anyone opens) would write into
    /// another test's pipe.
    public func stdinCopy() throws(SystemError) -> FileDescriptor { try input.duplicate() }
    public func stderrCopy() throws(SystemError) -> FileDescriptor? { try errors?.duplicate() }

    /// Writes to the child's standard input.
    public func send(_ bytes: [UInt8]) throws(SystemError) { try input.write(all: bytes) }

    /// Everything the child writes to standard output until it closes it.
    public func readOutput() -> [UInt8] {
        pending.withValue { $0 } + ((try? output.readToEnd()) ?? [])
    }

    public func readOutputText() -> String { String(decoding: readOutput(), as: UTF8.self) }

    /// Everything the child writes to standard error until it closes it.
    public func readErrors() -> String { String(decoding: (try? errors?.readToEnd()) ?? [], as: UTF8.self) }

    /// What the child has written to standard error so far, without waiting for more.
    public func errorsSoFar() -> String {
        guard let errors else { return "" }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while (try? Poller.wait([Poller.Watch(errors)], timeoutMilliseconds: 0))?.first?.isEmpty == false {
            let count = buffer.withUnsafeMutableBytes { (try? errors.read(into: $0)) ?? 0 }
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
            guard let ready = try? Poller.wait([Poller.Watch(output)], timeoutMilliseconds: min(deadline.millisecondsLeft, 100))
            else { return nil }
            if ready[0].isEmpty { continue }
            let count = buffer.withUnsafeMutableBytes { (try? output.read(into: $0)) ?? 0 }
            if count == 0 { return nil }
            pending.withValue { $0 += buffer[..<count] }
        }
        return nil
    }

    /// Closes its standard input, reads its standard output and standard error until it exits
    /// (both at once, so neither pipe can fill and stall it), and waits for it: its exit status
    /// (128 + the signal when a signal ended it) and what it wrote.
    public func finish() -> (status: Int32, output: [UInt8], errors: [UInt8]) {
        closeStdin()
        let (output, errors) = process.readUntilExit()
        return (wait(), pending.withValue { $0 } + output, errors)
    }

    /// Waits up to `seconds` for the child to exit; its exit status, or nil if it has not.
    /// A child killed by a signal reports 128 + the signal number, as shells do.
    public func waitForExit(seconds: Double) -> Int32? {
        process.wait(until: Deadline(secondsFromNow: seconds))?.code
    }

    /// Waits up to `seconds` for the child to exit, and kills it if it has not, so that reading
    /// what it wrote afterwards cannot wait forever (a child left waiting for a dialog nobody
    /// answers once hung a whole CI run there): its exit status, or nil when it had to be killed.
    public func waitForExitOrKill(seconds: Double) -> Int32? {
        if let status = waitForExit(seconds: seconds) { return status }
        kill(SIGKILL)
        wait()
        return nil
    }

    /// Waits for the child to exit, however long it takes.
    @discardableResult
    public func wait() -> Int32 { process.wait().code }

    /// Sends `signal` to the child; nothing once it has been waited for.
    public func kill(_ signal: Int32 = SIGKILL) { process.signal(signal) }

    deinit {
        // A child nobody waited for: killed (nothing happens to one already reaped) and reaped.
        process.signal(SIGKILL)
        _ = waitForExit(seconds: 2)
    }
}

/// Runs a program to its end with no input; its exit status and output (standard error
/// merged into standard output). Status 127 when it could not start.
@discardableResult
public func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], searchPath: Bool = false
) -> (status: Int32, output: String) {
    guard let child = try? ChildProcess(
        path: program, arguments: arguments, environment: environment, searchPath: searchPath, mergeErrors: true)
    else { return (127, "") }
    let (status, output, _) = child.finish()
    return (status, String(decoding: output, as: UTF8.self))
}
