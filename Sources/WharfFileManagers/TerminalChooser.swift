import Glibc
import WharfSystem

/// One dialog's hold on the controlling terminal: it runs the tool there as often as the
/// dialog needs (a refused pick opens it again), asks Wharf's own questions between runs, and
/// gives the terminal back exactly as it found it: its modes (what `stty -g` shows) and its
/// foreground process group, after every run and every question, and at ``finish()``.
///
/// Everything here blocks, so it runs on the dialog's own thread, never on a read loop or
/// under the engine's lock; ``cancel()`` is the one call for other threads: it ends the tool
/// (`SIGTERM`, then `SIGKILL` after a grace period) or the question being asked, and the
/// dialog's thread then restores the terminal and returns.
public final class TerminalChooser: Sendable {
    public let terminal: TerminalDevice
    private let found: TerminalMode
    private let foundForeground: Int32?
    private let state = Locked<State>(State())
    private let wakeup: WakeupPipe
    private let killGraceMilliseconds: Int

    private struct State {
        var cancelled = false
        var child: Subprocess?
    }

    /// Takes the terminal as it is now: what it will be given back as, by ``close()``, or by
    /// ``TerminalGuard`` if the process exits or is ended by a signal first (the tool ended,
    /// then the mode and the foreground given back).
    public init(terminal: TerminalDevice, killGraceMilliseconds: Int = 2000) throws(SystemError) {
        self.terminal = terminal
        found = try terminal.mode()
        foundForeground = terminal.foregroundGroup
        wakeup = try WakeupPipe()
        self.killGraceMilliseconds = killGraceMilliseconds
        try TerminalGuard.arm(terminal, saved: found, foreground: foundForeground)
    }

    /// Gives the terminal back for the last time: call it when the dialog is done with it.
    public func close() {
        TerminalDevice.blockJobControlSignals()
        finish()
        TerminalGuard.restore()
    }

    public var isCancelled: Bool { state.withValue { $0.cancelled } }

    /// Ends what is running (the tool, a question) from any thread; later runs and questions
    /// return at once.
    public func cancel() {
        let child = state.withValue { state -> Subprocess? in
            state.cancelled = true
            return state.child
        }
        wakeup.wake()
        guard let child else { return }
        child.signal(SIGTERM)
        child.signal(SIGCONT)   // a stopped tool takes SIGTERM only once it runs
        let grace = killGraceMilliseconds
        startThread {
            ProcessControl.sleep(milliseconds: grace)
            child.signal(SIGKILL)   // nothing once it has been reaped
        }
    }

    /// Gives the terminal back as found (and resumes the group that had it, when that is not
    /// this process's: it may have been stopped reading the terminal meanwhile). Called after
    /// every run and question; call it once more when the dialog is done.
    public func finish() {
        if let foundForeground, terminal.foregroundGroup != foundForeground {
            terminal.giveForeground(to: foundForeground)
            if foundForeground != TerminalDevice.ownProcessGroup { TerminalDevice.resume(group: foundForeground) }
        }
        try? terminal.setMode(found)
    }

    // MARK: Running the tool

    /// How a run ended.
    public struct Run: Sendable {
        /// How the tool exited; nil when it could not be started (``startFailure``).
        public var ending: Subprocess.Ending?
        /// Its standard output, when it was read (fzf).
        public var output: [UInt8] = []
        /// The end of its standard error, when it was kept.
        public var errors: [UInt8] = []
        /// The dialog was cancelled meanwhile (the tool was ended by ``cancel()``).
        public var cancelled = false
        public var startFailure: SystemError?
    }

    /// Runs `program` on the terminal in `directory` as its foreground group, with `input` on
    /// its standard input (else the terminal), its standard output read when
    /// `readsStandardOutput` (else the terminal), its standard error kept when
    /// `keepsStandardError` (else the terminal), and waits for it. A tool that stops (Ctrl-Z,
    /// or touching the terminal before it was its foreground) is given the foreground and
    /// continued: nobody else is there to resume it.
    public func run(
        _ program: FilePath, arguments: [[UInt8]], directory: FilePath, input: [UInt8]? = nil,
        readsStandardOutput: Bool = false, keepsStandardError: Bool = false, environment: [[UInt8]] = ProcessControl.environmentEntries()
    ) -> Run {
        TerminalDevice.blockJobControlSignals()
        defer { finish() }
        if isCancelled { return Run(cancelled: true) }
        let tty = Subprocess.Stream.file(terminal.descriptor)
        let child: Subprocess
        do {
            child = try Subprocess.spawn(
                program.bytes, arguments: arguments, environment: environment, newProcessGroup: true,
                standardInput: input == nil ? tty : .pipe, standardOutput: readsStandardOutput ? .pipe : tty,
                standardError: keepsStandardError ? .pipe : tty, workingDirectory: directory)
        } catch {
            return Run(startFailure: error)
        }
        terminal.giveForeground(to: child.pid)
        TerminalGuard.lend(to: child.pid)
        let cancelledMeanwhile = state.withValue { state -> Bool in
            state.child = child
            return state.cancelled
        }
        if cancelledMeanwhile { child.signal(SIGTERM) }
        if let input, let pipe = child.standardInput {
            // It reads as it starts; once it quits, the write fails (EPIPE) and that is all.
            try? pipe.write(all: input)
            pipe.close()
        }
        var run = watch(child)
        child.signal(SIGKILL)   // what it left running in its group (not yet reaped: still ours)
        TerminalGuard.lend(to: nil)   // before it is reaped and its id may be another's
        run.ending = child.wait()
        run.cancelled = state.withValue { state -> Bool in
            state.child = nil
            return state.cancelled
        }
        return run
    }

    /// Reads the child's pipes until it exits, resuming it whenever it stops.
    private func watch(_ child: Subprocess) -> Run {
        var run = Run()
        var streams: [(isOutput: Bool, end: FileDescriptor)] = []
        if let output = child.standardOutput { streams.append((true, output)) }
        if let errors = child.standardError { streams.append((false, errors)) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var exited = false
        while true {
            if !exited, let stopped = child.stoppedNow(), stopped {
                terminal.giveForeground(to: child.pid)
                child.signal(SIGCONT)
            }
            let watches = streams.map { Poller.Watch($0.end) } + (child.exitWatch.map { [Poller.Watch($0)] } ?? [])
            let ready = (try? Poller.wait(watches, timeoutMilliseconds: exited ? 0 : 200)) ?? []
            var readSomething = false
            var ended: [Int] = []
            for (position, stream) in streams.enumerated() where position < ready.count && !ready[position].isEmpty {
                let count = buffer.withUnsafeMutableBytes { (try? stream.end.read(into: $0)) ?? 0 }
                if count == 0 { ended.append(position); continue }
                readSomething = true
                if stream.isOutput {
                    run.output += buffer[..<count]
                } else {
                    run.errors += buffer[..<count]
                    if run.errors.count > 16384 { run.errors.removeFirst(run.errors.count - 8192) }
                }
            }
            for position in ended.reversed() { streams.remove(at: position).end.close() }
            if exited && (!readSomething || streams.isEmpty) { break }
            if !exited { exited = child.hasExited }
        }
        for stream in streams { stream.end.close() }
        return run
    }

    // MARK: Asking on the terminal

    /// A key the person pressed (shown after `text` when it is printable), or nil when the
    /// dialog was cancelled or the terminal is gone.
    public func readKey(after text: String) -> UInt8? {
        interact(text) { byte, echo in
            echo((32..<127).contains(byte) ? [byte, 13, 10] : [13, 10])
            return .done(byte)
        }
    }

    /// A line the person typed after `prompt`, starting as `initial` (which Enter alone takes),
    /// with Backspace and Ctrl-U; nil for Escape, Ctrl-C, Ctrl-D or the dialog cancelled.
    public func readLine(prompt: String, initial: [UInt8]) -> [UInt8]? {
        var line = initial
        return interact(prompt + String(decoding: initial, as: UTF8.self)) { byte, echo in
            switch byte {
            case 10, 13:
                echo([13, 10])
                return .done(line)
            case 3, 4, 27:
                echo([13, 10])
                return .done(nil)
            case 127, 8:
                guard !line.isEmpty else { return .more }
                // One character: its continuation bytes and its first.
                while let last = line.last, last & 0xC0 == 0x80 { line.removeLast() }
                if !line.isEmpty { line.removeLast() }
                echo([8, 32, 8])
            case 21:
                echo(Array(repeating: 8, count: line.count) + Array(repeating: 32, count: line.count) + Array(repeating: 8, count: line.count))
                line.removeAll()
            case 0..<32:
                break
            default:
                line.append(byte)
                echo([byte])
            }
            return .more
        } ?? nil
    }

    private enum Step<T> {
        case more
        case done(T)
    }

    /// Shows `text`, then hands each key to `handle` (with a way to echo) until it is done,
    /// in key-by-key mode; the modes are restored after. Escape sequences (arrow keys and the
    /// like) are swallowed whole, so that only a lone Escape reaches `handle`.
    private func interact<T>(_ text: String, handle: (UInt8, ([UInt8]) -> Void) -> Step<T>) -> T? {
        TerminalDevice.blockJobControlSignals()
        defer { finish() }
        if isCancelled { return nil }
        if let foundForeground, foundForeground != TerminalDevice.ownProcessGroup {
            // Asking from the background would read nothing; take the foreground for the question.
            terminal.giveForeground(to: TerminalDevice.ownProcessGroup)
        }
        try? terminal.setMode(found.keyByKey)
        terminal.discardTypeahead()
        try? terminal.write(Array(text.utf8))
        let echo: ([UInt8]) -> Void = { [terminal] bytes in try? terminal.write(bytes) }
        while true {
            guard let byte = nextByte(waitMilliseconds: nil) else { return nil }
            if byte == 27, let next = nextByte(waitMilliseconds: 30) {
                // An escape sequence: ESC [ ... final byte, or ESC O x.
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    while let more = nextByte(waitMilliseconds: 30), !(0x40...0x7E).contains(more) || (next == UInt8(ascii: "[") && more == UInt8(ascii: "[")) {}
                }
                continue
            }
            if case .done(let value) = handle(byte, echo) { return value }
        }
    }

    /// The next byte typed, waiting at most `waitMilliseconds` (nil: until one comes); nil on a
    /// timeout, a cancel or a terminal that is gone.
    private func nextByte(waitMilliseconds: Int?) -> UInt8? {
        while !isCancelled {
            guard let ready = try? Poller.wait([Poller.Watch(terminal.descriptor), wakeup.watch], timeoutMilliseconds: waitMilliseconds) else {
                return nil
            }
            if !ready[1].isEmpty { wakeup.drain(); continue }
            if ready[0].isEmpty { return nil }
            var byte: [UInt8] = [0]
            let count = byte.withUnsafeMutableBytes { (try? terminal.descriptor.read(into: $0)) ?? 0 }
            return count == 1 ? byte[0] : nil
        }
        return nil
    }
}
