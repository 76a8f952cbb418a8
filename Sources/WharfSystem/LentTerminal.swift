import Glibc

/// The controlling terminal (`/dev/tty`), lent to a full-screen program that draws on it (a
/// terminal file manager) and given back exactly as it was found.
///
/// What "as found" means is what `stty -g` shows, the terminal's modes (``Modes``), and which
/// process group owns the foreground. The program runs as a process group of its own, made the
/// terminal's foreground group while it runs, so the keys that send signals (Ctrl-C, Ctrl-\,
/// Ctrl-Z, where the program leaves them on) reach it alone and never the process that lent the
/// terminal; afterwards the foreground goes back to whoever had it. Changing the modes or the
/// foreground from a process group that is not in the foreground stops the caller with
/// `SIGTTOU` unless the signal is blocked: call ``blockJobControlSignals()`` first, on the
/// thread that does it.
public final class LentTerminal: Sendable {
    /// The terminal, open for reading and writing.
    public let descriptor: FileDescriptor

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Opens this process's controlling terminal. Fails (`ENXIO`) when there is none: a
    /// daemon, cron, a process started with `setsid`.
    public static func openControlling() throws(SystemError) -> LentTerminal {
        let descriptor = try FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY)
        guard isatty(descriptor.raw) == 1 else { throw SystemError(code: ENOTTY, operation: "isatty", path: "/dev/tty") }
        return LentTerminal(descriptor: descriptor)
    }

    /// The terminal's modes (`tcgetattr`).
    public func modes() throws(SystemError) -> Modes {
        var value = termios()
        guard tcgetattr(descriptor.raw, &value) == 0 else { throw .current("tcgetattr", path: "/dev/tty") }
        return Modes(value: value)
    }

    /// Sets the modes at once (`tcsetattr`, `TCSANOW`), retried when a signal interrupts it.
    public func setModes(_ modes: Modes) throws(SystemError) {
        var value = modes.value
        while tcsetattr(descriptor.raw, TCSANOW, &value) != 0 {
            guard errno == EINTR else { throw .current("tcsetattr", path: "/dev/tty") }
        }
    }

    /// The terminal's foreground process group, or nil when it cannot be told.
    public var foregroundGroup: Int32? {
        let group = tcgetpgrp(descriptor.raw)
        return group > 0 ? group : nil
    }

    /// Makes `group` the terminal's foreground process group (`tcsetpgrp`). A group that is
    /// gone, or of another session, is refused and nothing changes.
    @discardableResult
    public func giveForeground(to group: Int32) -> Bool {
        while tcsetpgrp(descriptor.raw, group) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    /// Sends `SIGCONT` to `group`: a program that read the terminal while another group had it
    /// (an editor waiting for its dialog) was stopped by `SIGTTIN`, and nobody else will
    /// resume it. A group that runs takes no notice.
    public static func resume(group: Int32) {
        _ = kill(-group, SIGCONT)
    }

    /// Writes `bytes` to the terminal; a terminal that is gone is not an error worth stopping for.
    public func write(_ bytes: [UInt8]) {
        try? descriptor.write(all: bytes)
    }

    /// Discards what was typed but not read yet (`tcflush`, `TCIFLUSH`): keys meant for a
    /// program that has ended must not answer the next question.
    public func discardTypeahead() {
        _ = tcflush(descriptor.raw, TCIFLUSH)
    }

    /// This process's process group.
    public static var ownProcessGroup: Int32 { getpgrp() }

    /// Blocks, in the calling thread only, the signals that lending a terminal can raise:
    /// `SIGTTOU` and `SIGTTIN` (changing the modes or the foreground, or reading, from the
    /// background: the call then just proceeds or fails), and `SIGPIPE` (writing to a program's
    /// input after it has quit: the write then fails with `EPIPE`).
    public static func blockJobControlSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTTOU, SIGTTIN, SIGPIPE] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// A terminal's modes, as `tcgetattr` reports them (what `stty -g` prints).
    public struct Modes: @unchecked Sendable {
        var value: termios

        /// These modes for reading a key at a time: no line editing, no echo, no signals from
        /// keys (Ctrl-C arrives as byte 3), input CR read as NL; output processing kept, so
        /// `\n` still starts a new line.
        public var keyByKey: Modes {
            var value = self.value
            value.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN)
            value.c_iflag &= ~tcflag_t(IXON | INLCR | IGNCR)
            value.c_iflag |= tcflag_t(ICRNL)
            value.c_oflag |= tcflag_t(OPOST | ONLCR)
            withUnsafeMutableBytes(of: &value.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            return Modes(value: value)
        }
    }
}

extension Subprocess {
    /// Whether the child is stopped now (Ctrl-Z, or it touched a terminal from the background),
    /// without waiting and without reaping it; nil once it has been reaped.
    public func stoppedNow() -> Bool? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 else { return nil }
        return info._sifields._sigchld.si_pid != 0
    }
}

/// What must still happen if the process exits (`exit`, however it is reached: the end of a
/// session, a signal the host turns into an exit) while it happens to hold something it
/// promised to give back, such as a lent terminal. Run by `atexit`, most recent first.
public enum ExitActions {
    private static let actions = Locked<(next: Int, registered: Bool, pending: [(Int, @Sendable () -> Void)])>((0, false, []))

    /// Adds `action`; returns what ``remove(_:)`` takes.
    public static func add(_ action: @escaping @Sendable () -> Void) -> Int {
        let (token, register) = actions.withValue { state -> (Int, Bool) in
            state.next += 1
            state.pending.append((state.next, action))
            defer { state.registered = true }
            return (state.next, !state.registered)
        }
        if register { atexit { ExitActions.runAll() } }
        return token
    }

    /// Removes the action `add` returned `token` for; nothing if it has run or is gone.
    public static func remove(_ token: Int) {
        actions.withValue { $0.pending.removeAll { $0.0 == token } }
    }

    private static func runAll() {
        let pending = actions.withValue { state -> [(Int, @Sendable () -> Void)] in
            defer { state.pending = [] }
            return state.pending
        }
        for (_, action) in pending.reversed() { action() }
    }
}
