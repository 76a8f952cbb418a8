import CProcessSpawn
import Glibc

/// A program this process started: the one way Wharf starts programs (dialog programs for a
/// person, and every child of a test or tool).
///
/// Every child, whoever asks for it:
/// - gets its program, arguments and environment as bytes, exactly as given (a start folder
///   passed to a dialog is a path, and a path need not be UTF-8);
/// - inherits nothing but its three standard streams: the spawn closes every descriptor from 3
///   on in the child (`posix_spawn_file_actions_addclosefrom_np`), so a descriptor another
///   thread opened without `O_CLOEXEC`, or had half made at that moment, cannot leak into it
///   and hold a pipe open (unless the caller passes one on purpose, `passing`: systemd's
///   socket activation hands a listening socket over as descriptor 3 this way);
/// - starts with an empty signal mask and every signal at its default disposition
///   (`POSIX_SPAWN_SETSIGMASK`, `POSIX_SPAWN_SETSIGDEF`): a host that blocks `SIGTERM` and
///   `SIGINT` to take them with `sigwait` (the `wharf` stdio host, the test runner), or that
///   ignores `SIGPIPE`, would otherwise hand that on, and a child blind to `SIGTERM` is one a
///   cancel cannot end;
/// - when asked, leads a process group of its own (`POSIX_SPAWN_SETPGROUP`), and then
///   ``signal(_:)`` reaches everything it started too; or a session of its own
///   (`POSIX_SPAWN_SETSID`): a service that outlives whoever started it, and that no terminal
///   signal sent to its starter's group reaches.
///
/// Its exit can be watched without reaping it (``exitWatch``, a pidfd, beside its pipes in a
/// ``Poller``; ``hasExited``), so its pid and group id stay reserved, and safe to signal, until
/// ``wait()`` reaps it. After that, ``signal(_:)`` does nothing: the numbers may be someone
/// else's. A child nobody waits for stays a zombie until this process ends.
public final class Subprocess: Sendable {
    /// Where one of the child's standard streams comes from or goes to.
    public enum Stream: Sendable {
        /// This process's own.
        case inherited
        /// `/dev/null`.
        case null
        /// A new pipe; this process's end is ``standardInput``, ``standardOutput`` or
        /// ``standardError``.
        case pipe
        /// A file the caller opened (and still owns); the child gets a copy of it.
        case file(FileDescriptor)
        /// For standard error only: wherever standard output goes.
        case standardOutput
    }

    /// How a child ended, as `waitpid` tells it.
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case killed(signal: Int32)

        /// From a `waitpid` status.
        public init(waitStatus status: Int32) {
            self = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .killed(signal: status & 0x7F)
        }

        /// As shells report it: the exit status, or 128 + the signal.
        public var code: Int32 {
            switch self {
            case .exited(let status): status
            case .killed(let signal): 128 + signal
            }
        }
    }

    public let pid: Int32
    /// This process's end of the child's standard input, when it is a ``Stream/pipe``.
    public let standardInput: FileDescriptor?
    /// This process's end of the child's standard output, when it is a ``Stream/pipe``.
    public let standardOutput: FileDescriptor?
    /// This process's end of the child's standard error, when it is a ``Stream/pipe``.
    public let standardError: FileDescriptor?
    /// Readable once the child has exited (a pidfd); nil where the kernel has none (before
    /// Linux 5.3). Watching it does not reap the child.
    public let exitWatch: FileDescriptor?
    /// Whether the child leads a process group of its own (and ``signal(_:)`` goes to the group).
    public let leadsProcessGroup: Bool
    /// How the child ended, set under the lock when it is reaped: from then on its pid and
    /// group id may belong to someone else, so nothing may be signalled.
    private let ending = Locked<Ending?>(nil)

    private init(pid: Int32, standardInput: FileDescriptor?, standardOutput: FileDescriptor?, standardError: FileDescriptor?,
                 exitWatch: FileDescriptor?, leadsProcessGroup: Bool) {
        self.pid = pid
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.exitWatch = exitWatch
        self.leadsProcessGroup = leadsProcessGroup
    }

    // MARK: Starting

    /// Starts `program` with `arguments` (without the program itself; it is passed as the
    /// first) and exactly `environment` (`NAME=value` entries; by default this process's, see
    /// ``ProcessControl/environmentEntries(adding:removing:)`` for changes). With `searchPath`,
    /// a `program` without a slash is looked up on this process's `PATH` (`posix_spawnp`).
    /// With `workingDirectory`, the child starts there (a folder that cannot be entered makes
    /// the spawn fail, as a missing program does).
    public static func spawn(
        _ program: [UInt8], arguments: [[UInt8]], environment: [[UInt8]] = ProcessControl.environmentEntries(),
        searchPath: Bool = false, newProcessGroup: Bool = false, newSession: Bool = false,
        standardInput: Stream = .inherited, standardOutput: Stream = .inherited, standardError: Stream = .inherited,
        passing passed: [Int32: FileDescriptor] = [:], workingDirectory: FilePath? = nil
    ) throws(SystemError) -> Subprocess {
        // The copies are made one by one: none may land on a descriptor still to be copied.
        precondition(passed.allSatisfy { number, descriptor in
            number >= 3 && (descriptor.raw == number || passed[descriptor.raw] == nil)
        }, "passed descriptors go to numbers from 3 on, none onto another passed descriptor")
        let shown = String(decoding: program, as: UTF8.self)
        let strings = [program] + arguments + environment
        guard !program.isEmpty, !strings.contains(where: { $0.contains(0) }) else {
            throw SystemError(code: program.isEmpty ? ENOENT : EINVAL, operation: "posix_spawn", path: shown)
        }
        if case .standardOutput = standardInput { preconditionFailure("standard input cannot be standard output") }
        if case .standardOutput = standardOutput { preconditionFailure("standard output cannot be itself") }

        // Each stream: the child's end (closed here once it has its copy) and ours.
        let input = try StreamEnds(standardInput, childReads: true)
        let output = try StreamEnds(standardOutput, childReads: false)
        let errors = try StreamEnds(standardError, childReads: false)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        input.addActions(to: &actions, as: 0)
        output.addActions(to: &actions, as: 1)
        errors.addActions(to: &actions, as: 2)
        for (number, descriptor) in passed.sorted(by: { $0.key < $1.key }) {
            // dup2 onto itself clears close-on-exec (glibc), as the copy's would be clear.
            posix_spawn_file_actions_adddup2(&actions, descriptor.raw, number)
        }
        wharf_spawn_close_from(&actions, (passed.keys.max() ?? 2) + 1)
        if let workingDirectory {
            _ = workingDirectory.withCString { wharf_spawn_change_directory(&actions, $0) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newSession {
            flags |= setSession
        } else if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = CStringArray([program] + arguments)
        let envp = CStringArray(environment)
        var child = pid_t()
        let result = searchPath
            ? posix_spawnp(&child, argv.pointers[0]!, &actions, &attributes, argv.pointers, envp.pointers)
            : posix_spawn(&child, argv.pointers[0]!, &actions, &attributes, argv.pointers, envp.pointers)
        for end in [input.child, output.child, errors.child] { end?.close() }
        guard result == 0 else { throw SystemError(code: result, operation: "posix_spawn", path: shown) }

        let watch = wharf_pidfd_open(child)
        return Subprocess(pid: child, standardInput: input.ours, standardOutput: output.ours, standardError: errors.ours,
                          exitWatch: watch >= 0 ? FileDescriptor(taking: watch) : nil, leadsProcessGroup: newProcessGroup || newSession)
    }

    /// `POSIX_SPAWN_SETSID` (glibc 2.26, behind `_GNU_SOURCE`, which Swift's Glibc module lacks).
    private static let setSession: Int32 = 0x80

    /// ``spawn(_:arguments:environment:searchPath:newProcessGroup:newSession:standardInput:standardOutput:standardError:passing:)``
    /// with the program and arguments as text (their UTF-8 bytes).
    public static func spawn(
        _ program: String, arguments: [String], environment: [[UInt8]] = ProcessControl.environmentEntries(),
        searchPath: Bool = false, newProcessGroup: Bool = false, newSession: Bool = false,
        standardInput: Stream = .inherited, standardOutput: Stream = .inherited, standardError: Stream = .inherited,
        passing passed: [Int32: FileDescriptor] = [:]
    ) throws(SystemError) -> Subprocess {
        try spawn(Array(program.utf8), arguments: arguments.map { Array($0.utf8) }, environment: environment,
                  searchPath: searchPath, newProcessGroup: newProcessGroup, newSession: newSession,
                  standardInput: standardInput, standardOutput: standardOutput, standardError: standardError,
                  passing: passed)
    }

    // MARK: Signalling

    /// Sends `signal` to the child, or to its whole process group when it leads one; nothing
    /// once it has been reaped.
    public func signal(_ signal: Int32) {
        ending.withValue { ending in
            if ending == nil { _ = kill(leadsProcessGroup ? -pid : pid, signal) }
        }
    }

    // MARK: Waiting

    /// Whether the child has exited, without reaping it (a zombie has exited).
    public var hasExited: Bool {
        if ending.withValue({ $0 }) != nil { return true }
        if let exitWatch {
            return (try? Poller.wait([Poller.Watch(exitWatch)], timeoutMilliseconds: 0))?.first?.isEmpty == false
        }
        return !ProcessIdentity(pid: pid, startTime: 0).isRunning
    }

    /// Whether the child is stopped now (Ctrl-Z, or it touched a terminal from the background),
    /// without waiting and without reaping it; nil once it has been reaped.
    public func stoppedNow() -> Bool? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 else { return nil }
        return info._sifields._sigchld.si_pid != 0
    }

    /// Waits until the child exits, reaps it and says how it ended. Any number of threads may
    /// wait; each gets the same ending.
    @discardableResult
    public func wait() -> Ending {
        if let ended = ending.withValue({ $0 }) { return ended }
        // Waits without reaping, so that a `signal` from another thread meanwhile still
        // reaches a pid that is ours.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        return reap()
    }

    /// ``wait()`` until `deadline`; nil (and the child left running) when it has not exited by then.
    public func wait(until deadline: Deadline) -> Ending? {
        while !hasExited {
            if deadline.hasPassed { return nil }
            if let exitWatch {
                _ = try? Poller.wait([Poller.Watch(exitWatch)], timeoutMilliseconds: min(deadline.millisecondsLeft, 1000))
            } else {
                ProcessControl.sleep(milliseconds: 2)
            }
        }
        return reap()
    }

    /// Reaps the child, which has exited.
    private func reap() -> Ending {
        ending.withValue { ending in
            if let ending { return ending }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let ended = Ending(waitStatus: status)
            ending = ended
            return ended
        }
    }

    // MARK: Reading

    /// Reads the child's standard output and standard error pipes (those it has) until it
    /// exits, then what they already hold, and closes them; standard error keeps its last
    /// `errorLimit` bytes. Blocks. A grandchild that keeps a pipe open cannot hold this up past
    /// the child's exit; the child is not reaped, so its group can still be signalled (then
    /// ``wait()``).
    public func readUntilExit(errorLimit: Int = .max) -> (output: [UInt8], errors: [UInt8]) {
        var output: [UInt8] = [], errors: [UInt8] = []
        var streams = [standardOutput, standardError].enumerated().compactMap { index, end in end.map { (index, $0) } }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        var exited = false
        while true {
            if streams.isEmpty {
                if !exited { waitUntilExited() }
                break
            }
            var watches = streams.map { Poller.Watch($0.1) }
            let watchingExit = !exited && exitWatch != nil
            if watchingExit, let exitWatch { watches.append(Poller.Watch(exitWatch)) }
            // Once the child has exited, only what is already there: a zero timeout.
            let timeout: Int? = exited ? 0 : (watchingExit ? nil : 100)
            let ready = (try? Poller.wait(watches, timeoutMilliseconds: timeout)) ?? Array(repeating: [], count: watches.count)
            var readSomething = false
            var ended: [Int] = []
            for (position, stream) in streams.enumerated() where !ready[position].isEmpty {
                let count = (try? stream.1.read(into: chunk)) ?? 0
                if count == 0 {
                    ended.append(position)
                    continue
                }
                readSomething = true
                if stream.0 == 0 {
                    output.append(contentsOf: chunk[..<count])
                } else {
                    errors.append(contentsOf: chunk[..<count])
                    // Trimmed now and then, not at every read.
                    if errors.count / 2 > errorLimit { errors.removeFirst(errors.count - errorLimit) }
                }
            }
            for position in ended.reversed() { streams.remove(at: position).1.close() }
            if !exited {
                exited = watchingExit ? ready.last?.isEmpty == false : hasExited
            } else if !readSomething {
                break
            }
        }
        for stream in streams { stream.1.close() }
        if errors.count > errorLimit { errors.removeFirst(errors.count - errorLimit) }
        return (output, errors)
    }

    /// Blocks until the child has exited, without reaping it.
    private func waitUntilExited() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    }
}

/// One standard stream of a child being spawned: the end the child gets (closed in the
/// parent once the child has it) and the end this process keeps.
private struct StreamEnds {
    var stream: Subprocess.Stream
    var child: FileDescriptor?
    var ours: FileDescriptor?

    init(_ stream: Subprocess.Stream, childReads: Bool) throws(SystemError) {
        self.stream = stream
        if case .pipe = stream {
            let ends = try FileDescriptor.pipe()
            (child, ours) = childReads ? (ends.read, ends.write) : (ends.write, ends.read)
        }
    }

    func addActions(to actions: inout posix_spawn_file_actions_t, as target: Int32) {
        switch stream {
        case .inherited:
            break
        case .null:
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
        case .pipe:
            posix_spawn_file_actions_adddup2(&actions, child!.raw, target)
        case .file(let file):
            posix_spawn_file_actions_adddup2(&actions, file.raw, target)
        case .standardOutput:
            posix_spawn_file_actions_adddup2(&actions, 1, target)
        }
    }
}

/// NUL-terminated copies of byte strings with a null pointer after them, as `execve` takes its
/// arguments and environment; freed with this object.
private final class CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [[UInt8]]) {
        pointers = strings.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawPointer(copy).copyMemory(from: source.baseAddress ?? UnsafeRawPointer(copy), byteCount: source.count)
            }
            copy[bytes.count] = 0
            return copy
        } + [nil]
    }

    deinit {
        for pointer in pointers { pointer?.deallocate() }
    }
}
