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
/// has been given back. Frames are written without waiting (``output`` is non-blocking):
/// what the terminal does not take at once waits in ``unwritten`` and goes out as it
/// becomes writable (``events(timeoutMilliseconds:)`` watches for that), so a terminal that
/// stops reading holds up neither the lock nor whoever gives the terminal back.
///
/// While the dialog is up and standard error is this same terminal, log lines are held
/// (``Logger/holdStandardError()``) and written once the terminal is given back.
///
/// `@unchecked Sendable`: what changes is only touched with `state` held, but for the key
/// decoder, which only the thread reading keys touches; the rest is set once, at opening.
public final class TerminalSession: @unchecked Sendable {
    public let terminfo: Terminfo
    public let device: TerminalDevice
    /// The same terminal opened again, non-blocking: every frame, and the guard's restoring bytes.
    private let output: TerminalDevice
    private let saved: TerminalMode
    private let resizes: ResizeSignal
    private let wakeup: WakeupPipe
    private let state = ConditionLock()
    /// Guarded by ``state``.
    private var phase = Phase.idle
    /// Guarded by ``state``: bytes not written yet, in order: the rest of the frame being
    /// written (``begun`` bytes: it must be finished, or the terminal would be left inside an
    /// escape sequence), then at most one whole frame, the newest (an older one not begun is
    /// dropped: each frame redraws the whole screen).
    private var unwritten: [UInt8] = []
    private var begun = 0
    /// Guarded by ``state``: the last frame drawn, its size and each row's bytes.
    private var shown: (rows: Int, columns: Int, lines: [[UInt8]])?
    /// Guarded by ``state``: log lines to standard error are held until the terminal is back.
    private var holdsLogLines = false
    /// Touched only by the thread that reads keys.
    private var decoder: KeyDecoder

    /// `leaving`: one thread is giving the terminal back; others wait for it to be done.
    private enum Phase { case idle, entered, leaving, left }

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
            output = try TerminalDevice.openControlling(nonBlocking: true)
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
        try state.withLock { () throws(SystemError) in
            guard phase == .idle else { return }
            TerminalDevice.blockJobControlSignals()
            let foreground = device.foregroundGroup
            // Armed with the non-blocking descriptor: giving the terminal back never waits
            // for a terminal that stopped reading.
            try TerminalGuard.arm(output, saved: saved, restoreBytes: restoreBytes, resizes: resizes, foreground: foreground)
            phase = .entered
            if let foreground, foreground != TerminalDevice.ownProcessGroup {
                device.giveForeground(to: TerminalDevice.ownProcessGroup)
            }
            do throws(SystemError) {
                try device.setMode(saved.raw)
            } catch {
                TerminalGuard.restore()
                phase = .left
                throw error
            }
            if TerminalDevice.standardErrorIsControllingTerminal {
                Logger.holdStandardError()
                holdsLogLines = true
            }
            // Counted as begun: never dropped for a frame, which must land on the alternate screen.
            unwritten = (terminfo[.enterAlternateScreen] ?? []) + (terminfo[.keypadTransmit] ?? [])
                + (terminfo[.cursorInvisible] ?? []) + (terminfo[.clearScreen] ?? [])
            begun = unwritten.count
            flush()
        }
    }

    /// Gives the terminal back as it was found: finishes the frame being written (waiting at
    /// most half a second for a terminal that does not take it), then the guard restores the
    /// screen, mode and foreground, and held log lines are written. Later calls do nothing;
    /// one made while another thread is giving the terminal back returns once it is back. Any
    /// thread; no lock is held while the terminal is written to.
    public func leave() {
        let rest = state.withLock { () -> [UInt8]? in
            switch phase {
            case .idle, .left:
                phase = .left
                return nil
            case .leaving:
                while phase == .leaving { state.wait() }
                return nil
            case .entered:
                phase = .leaving
                let rest = Array(unwritten.prefix(begun))
                unwritten = []
                begun = 0
                return rest
            }
        }
        guard let rest else { return }
        finish(rest)
        TerminalGuard.restore()
        let releaseLogLines = state.withLock { () -> Bool in
            phase = .left
            state.broadcast()
            defer { holdsLogLines = false }
            return holdsLogLines
        }
        if releaseLogLines { Logger.releaseStandardError() }
    }

    /// Writes the rest of a begun frame, waiting at most half a second in all for the terminal
    /// to take it. Phase `leaving`: no other thread writes.
    private func finish(_ rest: [UInt8]) {
        let deadline = Deadline(secondsFromNow: 0.5)
        var done = 0
        while done < rest.count {
            let wrote = (try? rest.withUnsafeBytes { bytes throws(SystemError) in
                try output.write(some: UnsafeRawBufferPointer(rebasing: bytes[done...]))
            }) ?? -1
            if wrote < 0 { return }
            done += wrote
            if wrote == 0 {
                let left = deadline.millisecondsLeft
                if left <= 0 || !output.waitUntilWritable(timeoutMilliseconds: left) { return }
            }
        }
    }

    /// Whether the terminal has been given back.
    public var hasLeft: Bool { state.withLock { phase == .left } }

    /// The window's size (the entry's, or 24 × 80, when the terminal does not say).
    public var size: (rows: Int, columns: Int) {
        device.size() ?? (terminfo.lines ?? 24, terminfo.columns ?? 80)
    }

    /// Draws `frame`, unless the terminal has been given back: made outside the lock, then
    /// queued and written as far as the terminal takes it now (never waiting).
    /// Only the rows that changed since the frame before are written, unless that frame was
    /// of another size, is still waiting whole (it is replaced: the screen shows neither), or
    /// ``redrawAll()`` was asked for.
    public func draw(_ frame: Frame) {
        let rows = frame.renderedRows(with: terminfo)
        state.withLock {
            guard phase == .entered else { return }
            let screenKnown = begun == unwritten.count && shown?.rows == frame.rows && shown?.columns == frame.columns
            queue(frame.render(with: terminfo, rows: rows, over: screenKnown ? shown?.lines : nil))
            shown = (frame.rows, frame.columns, rows)
        }
    }

    /// The next frame is drawn whole (Ctrl-L: the screen may show something else).
    public func redrawAll() {
        state.withLock { shown = nil }
    }

    /// Rings the bell (a key that does nothing here); not when frames wait to be written.
    public func bell() {
        state.withLock {
            guard phase == .entered, unwritten.isEmpty, let bell = terminfo[.bell] else { return }
            queue(bell)
        }
    }

    /// Whether bytes wait for the terminal to take them.
    public var isBehind: Bool { state.withLock { !unwritten.isEmpty } }

    /// Lock held, phase `entered`. Queues `bytes` after the begun frame (replacing a frame not
    /// begun), then writes what the terminal takes.
    private func queue(_ bytes: [UInt8]) {
        if begun < unwritten.count { unwritten.removeSubrange(begun...) }
        unwritten += bytes
        flush()
    }

    /// Lock held. Writes as much of ``unwritten`` as the terminal takes without waiting.
    private func flush() {
        guard !unwritten.isEmpty else { return }
        let wrote: Int
        do {
            wrote = try unwritten.withUnsafeBytes { bytes throws(SystemError) in try output.write(some: bytes) }
        } catch {
            // The terminal is gone: reading it says so (a hang-up) and the dialog ends.
            unwritten = []
            begun = 0
            return
        }
        guard wrote > 0 else { return }
        // What is left belongs to the frame now begun (or to the begun one, still).
        begun = wrote < begun ? begun - wrote : unwritten.count - wrote
        unwritten.removeSubrange(..<wrote)
    }

    /// Wakes the thread waiting in ``events(timeoutMilliseconds:)``.
    public func wake() { wakeup.wake() }

    /// Waits for keys, a resize or a wake-up, at most `timeoutMilliseconds` (nil: no limit);
    /// empty when the time ran out. One thread only.
    public func events(timeoutMilliseconds: Int?) -> [TerminalEvent] {
        // Bytes of an unfinished sequence: a lone Escape unless more come at once.
        let timeout = decoder.isWaiting ? min(timeoutMilliseconds ?? 30, 30) : timeoutMilliseconds
        let deadline = timeout.map { Deadline(secondsFromNow: Double($0) / 1000) }
        var ready: [Poller.Events]
        while true {
            var watches = [Poller.Watch(device.descriptor), resizes.watch, wakeup.watch]
            if isBehind { watches.append(Poller.Watch(output.descriptor, for: .writable)) }
            do {
                ready = try Poller.wait(watches, timeoutMilliseconds: deadline.map { max($0.millisecondsLeft, 0) })
            } catch {
                return [.hungUp]
            }
            guard ready.count > 3 && !ready[3].isEmpty else { break }
            // The terminal takes more of a frame: write it, and go on waiting for what was asked.
            state.withLock { if phase == .entered { flush() } }
            if !ready[0..<3].allSatisfy(\.isEmpty) || deadline?.hasPassed == true { break }
        }
        var events: [TerminalEvent] = []
        if !ready[2].isEmpty {
            wakeup.drain()
            events.append(.woken)
        }
        if !ready[1].isEmpty {
            resizes.drain()
            // The terminal may have cut what it showed: the next frame is drawn whole.
            redrawAll()
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
