import CTerminal
import Glibc

/// The controlling terminal (`/dev/tty`), opened for itself, so that standard input and output
/// (a JSON-RPC stream, a pipe) are never touched: the one way to the terminal for whatever shows
/// a dialog there, whether Wharf draws it (the terminal picker) or lends the terminal to a
/// program that does (a file manager).
///
/// What "as found" means is its mode (``TerminalMode``, what `stty -g` shows) and which process
/// group owns the foreground; ``TerminalGuard`` gives both back on every way out. Changing the
/// mode or the foreground from a process group that is not in the foreground stops the caller
/// with `SIGTTOU` unless the signal is blocked: call ``blockJobControlSignals()`` first, on the
/// thread that does it.
public final class TerminalDevice: Sendable {
    public let descriptor: FileDescriptor

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Opens the controlling terminal (`O_NOCTTY`: never acquires one). Fails with `ENXIO` when
    /// the process has none (cron, a daemon, a pipe's far end with no terminal).
    ///
    /// - Parameter nonBlocking: writes never wait (``write(some:)``): a terminal that stops
    ///   reading (a stalled ssh link, a pane nobody reads) cannot hold up the thread that
    ///   writes, nor anyone waiting for it. The flag belongs to this open of the terminal only.
    public static func openControlling(path: FilePath = "/dev/tty", nonBlocking: Bool = false) throws(SystemError) -> TerminalDevice {
        let descriptor = try FileDescriptor.open(path, O_RDWR | O_NOCTTY | (nonBlocking ? O_NONBLOCK : 0))
        guard isatty(descriptor.raw) == 1 else { throw SystemError.current("isatty", path: path) }
        return TerminalDevice(descriptor: descriptor)
    }

    /// Whether standard error is this process's controlling terminal (`tcgetsid`: the
    /// terminal of this process's session), so that a log line written there would land on a
    /// dialog drawn on it.
    public static var standardErrorIsControllingTerminal: Bool {
        isatty(2) == 1 && tcgetsid(2) == getsid(0)
    }

    /// The terminal's mode now (`tcgetattr`).
    public func mode() throws(SystemError) -> TerminalMode {
        var settings = termios()
        _ = try Syscalls.retrying("tcgetattr", path: descriptor.path) { tcgetattr(descriptor.raw, &settings) }
        return TerminalMode(settings: settings)
    }

    /// Sets `mode` once the output written so far has gone out (`TCSADRAIN`).
    public func setMode(_ mode: TerminalMode) throws(SystemError) {
        var settings = mode.settings
        _ = try Syscalls.retrying("tcsetattr", path: descriptor.path) { tcsetattr(descriptor.raw, TCSADRAIN, &settings) }
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

    /// Discards what was typed but not read yet (`tcflush`, `TCIFLUSH`): keys meant for a
    /// program that has ended must not answer the next question.
    public func discardTypeahead() {
        _ = tcflush(descriptor.raw, TCIFLUSH)
    }

    /// This process's process group.
    public static var ownProcessGroup: Int32 { getpgrp() }

    /// Blocks, in the calling thread only, the signals that using a terminal from the
    /// background or lending it can raise: `SIGTTOU` and `SIGTTIN` (changing the mode or the
    /// foreground, or reading, from the background: the call then just proceeds or fails), and
    /// `SIGPIPE` (writing to a program's input after it has quit: the write then fails with
    /// `EPIPE`).
    public static func blockJobControlSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTTOU, SIGTTIN, SIGPIPE] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The window's size in character cells; nil when the terminal does not know it (0 × 0).
    public func size() -> (rows: Int, columns: Int)? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard wharf_terminal_size(descriptor.raw, &rows, &columns) == 0, rows > 0, columns > 0 else { return nil }
        return (Int(rows), Int(columns))
    }

    /// Writes every byte (a whole frame at once, so the terminal never shows half of one).
    public func write(_ bytes: [UInt8]) throws(SystemError) {
        try descriptor.write(all: bytes)
    }

    /// Writes what the terminal takes now, without waiting (opened `nonBlocking`): how many
    /// bytes that was, 0 when it takes none.
    public func write(some bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try descriptor.write(some: bytes)
    }

    /// Waits until the terminal takes more output, at most `timeoutMilliseconds`; whether it does.
    public func waitUntilWritable(timeoutMilliseconds: Int) -> Bool {
        guard let ready = try? Poller.wait([Poller.Watch(descriptor, for: .writable)], timeoutMilliseconds: timeoutMilliseconds) else {
            return false
        }
        return ready[0].contains(.writable)
    }

    /// What has arrived, up to `limit` bytes; empty at end of file (the terminal hung up).
    public func read(limit: Int = 4096) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        var result: Result<Int, SystemError> = .success(0)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { result = .success(try descriptor.read(into: raw)) } catch { result = .failure(error) }
        }
        let count = try result.get()
        buffer.removeSubrange(count...)
        return buffer
    }
}

/// A terminal's line discipline settings (`struct termios`), as saved and set.
///
/// `@unchecked Sendable`: `termios` is plain values (flags, speeds, control characters) that
/// Glibc's import does not mark `Sendable`; a copy shares nothing.
public struct TerminalMode: @unchecked Sendable {
    var settings: termios

    /// For a full-screen program: no echo, no line editing, no signals from keys (Ctrl-C is
    /// read as a key, so the program ends itself and gives the terminal back), no
    /// translation of input or output, reads returning each byte as it comes. Like
    /// `cfmakeraw`, except that output processing is left as it was.
    public var raw: TerminalMode {
        var mode = settings
        mode.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        mode.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        mode.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        mode.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return TerminalMode(settings: mode)
    }

    /// For reading a key at a time below a line of text: no line editing, no echo, no signals
    /// from keys (Ctrl-C arrives as byte 3), input CR read as NL; output processing kept, so
    /// `\n` still starts a new line.
    public var keyByKey: TerminalMode {
        var mode = settings
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN)
        mode.c_iflag &= ~tcflag_t(IXON | INLCR | IGNCR)
        mode.c_iflag |= tcflag_t(ICRNL)
        mode.c_oflag |= tcflag_t(OPOST | ONLCR)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return TerminalMode(settings: mode)
    }

    /// Whether two modes set the terminal alike (every flag, every control character, the speeds).
    public func sameSettings(as other: TerminalMode) -> Bool {
        var left = settings
        var right = other.settings
        return withUnsafeBytes(of: &left) { a in withUnsafeBytes(of: &right) { b in a.elementsEqual(b) } }
    }
}

/// Gives a terminal back as it was found on every way out of a dialog shown on it: its
/// ordinary end (``restore()``), `exit`, a signal that ends the process (SIGTERM, SIGHUP,
/// SIGINT, SIGQUIT) and a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE). The
/// handlers are C and call only async-signal-safe functions: they end the program the terminal
/// is lent to (``lend(to:)``), write `restoreBytes` (leave the alternate screen, show the
/// cursor), set the saved mode and give the foreground back to the group that had it (resuming
/// it), then let the signal do what it did before. Also reports window resizes (SIGWINCH) on a
/// pipe a poller can watch.
///
/// One terminal is guarded at a time in a process; arm, then restore, on one thread.
public enum TerminalGuard {
    /// Arms the guard for `device`, whose mode before the dialog changed it is `saved` and whose
    /// foreground then was `foreground` (nil: leave the foreground alone). `resizes`, when
    /// given, is written a byte at each SIGWINCH.
    public static func arm(
        _ device: TerminalDevice, saved: TerminalMode, restoreBytes: [UInt8] = [], resizes: ResizeSignal? = nil, foreground: Int32? = nil
    ) throws(SystemError) {
        var settings = saved.settings
        let result = restoreBytes.withUnsafeBufferPointer { bytes in
            wharf_terminal_guard_arm(device.descriptor.raw, &settings, bytes.baseAddress, bytes.count, resizes?.writeDescriptor ?? -1, foreground ?? -1)
        }
        guard result == 0 else { throw SystemError(code: EBUSY, operation: "arming the terminal guard") }
    }

    /// The process group the terminal is lent to now (nil: none): ended first if the terminal
    /// must be given back meanwhile (`SIGTERM`, a second to put its screen back, `SIGKILL`).
    public static func lend(to group: Int32?) {
        wharf_terminal_guard_lend(group ?? 0)
    }

    /// Writes the restoring bytes and sets the saved mode, if armed; puts the signal handlers
    /// back. Any thread; later calls do nothing. Whether this call restored the terminal.
    @discardableResult
    public static func restore() -> Bool { wharf_terminal_guard_restore() == 1 }
}

/// A pipe written a byte at every window resize (SIGWINCH) while ``TerminalGuard`` is armed
/// with it: watch ``watch``, then ``drain()``.
public final class ResizeSignal: Sendable {
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor

    public init() throws(SystemError) {
        (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
    }

    var writeDescriptor: Int32 { writeEnd.raw }

    public var watch: Poller.Watch { Poller.Watch(readEnd, for: .readable) }

    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while (buffer.withUnsafeMutableBytes { (try? readEnd.read(into: $0)) ?? 0 }) > 0 {}
    }
}

/// How many columns characters take on a terminal (`wcwidth` under a UTF-8 locale of the
/// calling thread's own, whatever the process's locale is): 2 for wide East Asian characters,
/// 0 for combining marks, -1 for controls.
public enum CharacterWidth {
    /// The width of each scalar; nil when no UTF-8 locale is installed.
    public static func widths(of scalars: [UInt32]) -> [Int]? {
        guard !scalars.isEmpty else { return [] }
        var widths = [Int32](repeating: 0, count: scalars.count)
        let result = scalars.withUnsafeBufferPointer { input in
            widths.withUnsafeMutableBufferPointer { output in
                wharf_terminal_widths(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return result == 0 ? widths.map(Int.init) : nil
    }
}
