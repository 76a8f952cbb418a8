#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CProcessSpawn
import WharfSystem

/// A dialog program (zenity, kdialog) running as a child in a process group of its own.
///
/// WharfSystem's `Spawn.start` takes `String` arguments and adds to the parent's environment;
/// a dialog needs more: arguments and environment as bytes (a start folder is a path), a
/// process group (so that cancel kills the dialog and anything it started), signals reset to
/// their defaults, and nothing inherited but its standard streams (`closefrom(3)` in the
/// child, so a pipe another thread is making cannot leak into it whatever lock it holds).
///
/// `@unchecked Sendable`: `reaped` is guarded by its lock; the rest is immutable.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private let output: Int32
    private let errors: Int32
    /// Set (under the lock) just before the child is reaped: after that its pid and process
    /// group id may belong to someone else, so nothing may be killed.
    private let reaped = Locked(false)

    private init(pid: pid_t, output: Int32, errors: Int32) {
        self.pid = pid
        self.output = output
        self.errors = errors
    }

    /// Starts `program` (an absolute path) with `arguments` and exactly `environment`
    /// (`NAME=value` entries); standard input is /dev/null.
    static func spawn(program: [UInt8], arguments: [[UInt8]], environment: [[UInt8]]) throws(SystemError) -> ChildProcess {
        let programName = String(decoding: program, as: UTF8.self)
        let outputPipe = try pipe(), errorPipe = try pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        wharf_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([program] + arguments).map(cString) + [nil]
        let envp = environment.map(cString) + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child = pid_t()
        let result = posix_spawn(&child, argv[0]!, &actions, &attributes, argv, envp)
        close(outputPipe.write)
        close(errorPipe.write)
        guard result == 0 else {
            close(outputPipe.read)
            close(errorPipe.read)
            throw SystemError(code: result, operation: "posix_spawn", path: programName)
        }
        return ChildProcess(pid: child, output: outputPipe.read, errors: errorPipe.read)
    }

    /// Sends `signal` to the child's whole process group, unless it has been reaped.
    func signalGroup(_ signal: Int32) {
        reaped.withValue { reaped in
            if !reaped { _ = kill(-pid, signal) }
        }
    }

    /// Asks the whole group to end (SIGTERM).
    func terminateGroup() { signalGroup(SIGTERM) }

    /// Ends the whole group now (SIGKILL).
    func killGroup() { signalGroup(SIGKILL) }

    /// Reads standard output and standard error to their end, waits for the child to exit,
    /// kills whatever is left of its process group, reaps it. Blocks: call it on a thread of
    /// its own. `stderr` keeps its last 8 KiB.
    func collect() -> (status: ToolExit.Status, stdout: [UInt8], stderr: [UInt8]) {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        let exitWatch = wharf_pidfd_open(pid)
        defer { if exitWatch >= 0 { close(exitWatch) } }
        var open: [Int32] = [output, errors]
        var leaderExited = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if exitWatch >= 0 && !leaderExited { fds.append(pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0)) }
            // Draining after the leader exited: what is already in the pipes, then stop (a
            // grandchild holding a pipe open must not keep the dialog from ending).
            let timeout: Int32 = leaderExited ? 0 : (exitWatch >= 0 ? -1 : 100)
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno == EINTR { continue }
            var readSomething = false
            for entry in fds where entry.revents != 0 && entry.fd != exitWatch {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                } else {
                    readSomething = true
                    if entry.fd == output { stdout += buffer[..<count] } else { stderr += buffer[..<count] }
                    if stderr.count > 16384 { stderr.removeFirst(stderr.count - 8192) }
                }
            }
            if !leaderExited {
                if exitWatch >= 0 {
                    leaderExited = fds.last.map { $0.fd == exitWatch && $0.revents != 0 } ?? false
                } else {
                    leaderExited = !ProcessIdentity(pid: pid, startTime: 0).isRunning
                }
            } else if !readSomething {
                break
            }
        }
        for fd in open { close(fd) }
        if stderr.count > 8192 { stderr.removeFirst(stderr.count - 8192) }
        // The leader is a zombie or exiting; its group id is still ours. Anything it left behind
        // in the group goes with it.
        signalGroup(SIGKILL)
        reaped.withValue { $0 = true }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ending: ToolExit.Status = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .killed(signal: status & 0x7F)
        return (ending, stdout, stderr)
    }

    private static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard wharf_pipe_cloexec(&ends) == 0 else { throw .current("pipe2") }
        return (ends[0], ends[1])
    }

    private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        let pointer = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
        bytes.withUnsafeBytes { raw in
            for (index, byte) in raw.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        }
        pointer[bytes.count] = 0
        return pointer
    }
}
