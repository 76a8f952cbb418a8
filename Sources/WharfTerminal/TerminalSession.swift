import WharfSystem

/// Why a dialog cannot be drawn on this terminal, in words for the person at it.
public struct TerminalUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What happened while a program waited on the terminal.
public enum TerminalEvent: Sendable, Equatable {
    case key(Key)
    /// The window changed size: draw again.
    case resized
    /// Another thread called ``TerminalSession/wake()``.
    case woken
    /// The terminal went away (hung up, or reads fail).
    case hungUp
}

/// The controlling terminal taken over by a full-screen program: opened, its capabilities
/// read, put in raw mode on the alternate screen (``enter()``), and given back exactly as it was
/// found (``leave()``) — or, on a signal, a crash or `exit`, by ``TerminalGuard``.
///
/// Drawing and leaving may come from different threads (the app ends a dialog while the
/// person is choosing): both take the session's lock, so no frame is drawn once the terminal
/// has been given back.
public final class TerminalSession: @unchecked Sendable {
    public let terminfo: Terminfo
    public let device: TerminalDevice
    private let saved: TerminalMode
    private let resizes: ResizeSignal
    private let wakeup: WakeupPipe
    private let state = Locked<Phase>(.idle)
    /// Touched only by the thread that reads keys.
    private var decoder: KeyDecoder

    private enum Phase { case idle, entered, left }

    /// Whether a dialog could be drawn here, without taking anything over: the process has a
    /// controlling terminal, and `TERM` names a terminal with an entry that can address the
    /// cursor. Nil when it can; else why not. The terminal is asked about first: where there is
    /// none (`ssh host wharf pick`, cron), `TERM` is usually unset too, and the missing terminal
    /// is what a person has to fix.
    public static func problem(environment: [String: String]) -> TerminalUnavailable? {
        do {
            _ = try TerminalDevice.openControlling()
        } catch {
            return TerminalUnavailable("no controlling terminal (/dev/tty: \(error.reason))")
        }
        guard let term = environment["TERM"], !term.isEmpty else {
            return TerminalUnavailable("TERM is not set, so the terminal's kind is unknown")
        }
        if term == "dumb" { return TerminalUnavailable("TERM=dumb: this terminal cannot move its cursor") }
        do {
            _ = try Terminfo.locate(term: term, environment: environment)
        } catch {
            return TerminalUnavailable(error.description)
        }
        return nil
    }

    /// Opens the controlling terminal and reads its terminfo entry.
    public init(environment: [String: String]) throws(TerminalUnavailable) {
        if let problem = Self.problem(environment: environment) { throw problem }
        let term = environment["TERM"] ?? ""
        do {
            terminfo = try Terminfo.load(term: term, environment: environment)
        } catch {
            throw TerminalUnavailable(error.description)
        }
        guard terminfo[.cursorAddress] != nil else {
            throw TerminalUnavailable("TERM=\(term): its terminfo entry cannot move the cursor (no cup)")
        }
        do {
            device = try TerminalDevice.openControlling()
            saved = try device.mode()
            resizes = try ResizeSignal()
            wakeup = try WakeupPipe()
        } catch {
            throw TerminalUnavailable("the terminal: \(error)")
        }
        decoder = KeyDecoder(terminfo: terminfo)
    }

    /// What gives the screen back: the keypad, attributes and cursor as they were, then the
    /// normal screen; a terminal without an alternate screen (a VT100) is cleared instead, so
    /// no dialog is left on it.
    static func restoreBytes(for terminfo: Terminfo) -> [UInt8] {
        (terminfo[.keypadLocal] ?? []) + (terminfo[.exitAttributes] ?? []) + (terminfo[.cursorNormal] ?? [])
            + (terminfo[.exitAlternateScreen] ?? terminfo[.clearScreen] ?? [])
    }

    private var restoreBytes: [UInt8] { Self.restoreBytes(for: terminfo) }

    /// Whether the terminal can dim text; without it, what cannot be chosen is shown otherwise.
    public var canDim: Bool { terminfo[.enterDim] != nil }

    /// Takes the terminal over: the foreground (when this process was started in the
    /// background: keys would never reach it), raw mode, the alternate screen, the keypad
    /// sending the keys terminfo names, the cursor hidden. The guard is armed before anything
    /// changes, with the foreground group to give back (and resume) as well as the mode.
    public func enter() throws(SystemError) {
        try state.withValue { phase throws(SystemError) in
            guard phase == .idle else { return }
            TerminalDevice.blockJobControlSignals()
            let foreground = device.foregroundGroup
            try TerminalGuard.arm(device, saved: saved, restoreBytes: restoreBytes, resizes: resizes, foreground: foreground)
            phase = .entered
            if let foreground, foreground != TerminalDevice.ownProcessGroup {
                device.giveForeground(to: TerminalDevice.ownProcessGroup)
            }
            do throws(SystemError) {
                try device.setMode(saved.raw)
                try device.write((terminfo[.enterAlternateScreen] ?? []) + (terminfo[.keypadTransmit] ?? [])
                                 + (terminfo[.cursorInvisible] ?? []) + (terminfo[.clearScreen] ?? []))
            } catch {
                TerminalGuard.restore()
                phase = .left
                throw error
            }
        }
    }

    /// Gives the terminal back as it was found; later calls do nothing. Any thread.
    public func leave() {
        state.withValue { phase in
            if phase == .entered { TerminalGuard.restore() }
            phase = .left
        }
    }

    /// Whether the terminal has been given back.
    public var hasLeft: Bool { state.withValue { $0 == .left } }

    /// The window's size (the entry's, or 24 × 80, when the terminal does not say).
    public var size: (rows: Int, columns: Int) {
        device.size() ?? (terminfo.lines ?? 24, terminfo.columns ?? 80)
    }

    /// Draws `frame`, unless the terminal has been given back.
    public func draw(_ frame: Frame) {
        let bytes = frame.render(with: terminfo)
        state.withValue { phase in
            guard phase == .entered else { return }
            try? device.write(bytes)
        }
    }

    /// Rings the bell (a key that does nothing here).
    public func bell() {
        state.withValue { phase in
            guard phase == .entered, let bell = terminfo[.bell] else { return }
            try? device.write(bell)
        }
    }

    /// Wakes the thread waiting in ``events(timeoutMilliseconds:)``.
    public func wake() { wakeup.wake() }

    /// Waits for keys, a resize or a wake-up, at most `timeoutMilliseconds` (nil: no limit);
    /// empty when the time ran out. One thread only.
    public func events(timeoutMilliseconds: Int?) -> [TerminalEvent] {
        // Bytes of an unfinished sequence: a lone Escape unless more come at once.
        let timeout = decoder.isWaiting ? min(timeoutMilliseconds ?? 30, 30) : timeoutMilliseconds
        let ready: [Poller.Events]
        do {
            ready = try Poller.wait([Poller.Watch(device.descriptor), resizes.watch, wakeup.watch], timeoutMilliseconds: timeout)
        } catch {
            return [.hungUp]
        }
        var events: [TerminalEvent] = []
        if !ready[2].isEmpty {
            wakeup.drain()
            events.append(.woken)
        }
        if !ready[1].isEmpty {
            resizes.drain()
            events.append(.resized)
        }
        if !ready[0].isEmpty {
            guard let bytes = try? device.read(), !bytes.isEmpty else { return events + [.hungUp] }
            events += decoder.feed(bytes).map(TerminalEvent.key)
        } else if decoder.isWaiting {
            events += decoder.flush().map(TerminalEvent.key)
        }
        return events
    }
}
