#if canImport(Glibc)
import Glibc
#endif
import WharfSystem

/// Driving real windows under Xvfb like a person: xdotool finds them, focuses them, types and
/// presses keys; `import` photographs them. Every wait is on a condition with a deadline.
public enum Desktop {
    /// True inside `make test-desktop` (Tests/desktop/rig.sh sets it).
    public static var isRig: Bool { getenv("WHARF_DESKTOP_RIG").map { String(cString: $0) == "1" } ?? false }

    /// Waits for a visible window whose name matches `title` (an xdotool regex); its id.
    ///
    /// xdotool's search fails outright (BadWindow) when another window goes away while it walks
    /// the tree, as the previous dialog's may; it is then asked again.
    public static func waitForWindow(_ title: String, seconds: Int = 60) -> String? {
        let deadline = Deadline(secondsFromNow: Double(seconds))
        while true {
            let remaining = max((deadline.millisecondsLeft + 999) / 1000, 1)
            let found = Command.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", title], timeoutSeconds: remaining)
            if let window = found.lines.last { return window }
            if deadline.hasPassed || !found.stderr.contains("BadWindow") {
                print("rig: xdotool search for \(title) ended with \(found.status): \(found.stderr)")
                return nil
            }
            pause(milliseconds: 50)
        }
    }

    /// Visible windows whose name matches `title`.
    public static func windows(_ title: String) -> [String] {
        Command.run(["xdotool", "search", "--onlyvisible", "--name", title], timeoutSeconds: 10).lines
    }

    /// Waits until no visible window matches `title`.
    @discardableResult
    public static func waitUntilGone(_ title: String, seconds: Double = 30) -> Bool {
        let deadline = Deadline(secondsFromNow: seconds)
        while !deadline.hasPassed {
            if windows(title).isEmpty { return true }
            pause(milliseconds: 50)
        }
        return windows(title).isEmpty
    }

    /// Waits until `window` is viewable and active (the window manager gave it the keyboard).
    public static func waitUntilReady(_ window: String, seconds: Double = 20) {
        let deadline = Deadline(secondsFromNow: seconds)
        while !deadline.hasPassed {
            focus(window)
            let viewable = Command.run(["xwininfo", "-id", window], timeoutSeconds: 5).stdout.contains("IsViewable")
            if viewable && activeWindow() == window { return }
            pause(milliseconds: 50)
        }
    }

    /// The window the window manager has made active.
    public static func activeWindow() -> String? {
        Command.run(["xdotool", "getactivewindow"], timeoutSeconds: 5).lines.last
    }

    /// Waits until the active window is another than `window` (a question it opened); that one.
    public static func waitForActiveWindow(otherThan window: String, seconds: Double = 15) -> String? {
        let deadline = Deadline(secondsFromNow: seconds)
        while !deadline.hasPassed {
            if let active = activeWindow(), active != window { return active }
            pause(milliseconds: 50)
        }
        return nil
    }

    /// Gives `window` the keyboard (through the window manager, and waits until it has it).
    public static func focus(_ window: String) {
        Command.run(["xdotool", "windowactivate", "--sync", window], timeoutSeconds: 10)
        Command.run(["xdotool", "windowfocus", "--sync", window], timeoutSeconds: 10)
    }

    public static func key(_ window: String, _ keys: String...) {
        focus(window)
        Command.run(["xdotool", "key", "--clearmodifiers"] + keys)
    }

    public static func type(_ window: String, _ text: String) {
        focus(window)
        // 25 ms a key: GTK's location field starts loading a folder for completion at each
        // "/", and keys typed faster than that were seen to get lost on a loaded machine.
        Command.run(["xdotool", "type", "--clearmodifiers", "--delay", "25", text])
    }

    /// A GTK file chooser: Ctrl+L opens the location field; type `path`, press Return.
    ///
    /// For a file (not a folder to go into), a window still open and still in front five
    /// seconds later means the Return did not take (the location field's completion was seen
    /// to swallow it under load): the person types it again, up to three times. A question
    /// in front ("Replace?") or the window gone means it took.
    ///
    /// Unless Wharf refused something else than `path`: keys that missed the location field
    /// went to the list (seen once on a loaded machine: the chooser, opened on "Recent", gave
    /// back the folder listed there). Wharf then shows the dialog again with the refusal in its
    /// title, and the person chooses again there. A refusal of `path` itself is the answer.
    public static func gtkChoose(_ window: String, path: String) {
        let title = windowName(window)
        var window = window
        for _ in 0..<3 {
            key(window, "ctrl+l")
            waitForLocationField()
            debugShot("after-ctrl-l")
            key(window, "ctrl+a")
            type(window, path)
            settleTyping()
            debugShot("after-typing")
            key(window, "Return")
            settleTyping()
            debugShot("after-return")
            if path.hasSuffix("/") { return }
            if waitUntilClosed(window, seconds: 5) {
                guard let title, let again = windowAppearing("^" + regexEscaped(title) + " — .*cannot be chosen", seconds: 3),
                      let refusal = windowName(again), !refusal.contains("file://" + path + " cannot be chosen")
                else { return }
                print("rig: the dialog gave back something else than \(path) (\(refusal)); choosing again")
                waitUntilReady(again)
                window = again
                continue
            }
            if activeWindow() != window { return }
        }
    }

    /// A GTK file chooser saving over a file that exists: chooses `path`, then answers GTK's
    /// own question ("A file named … already exists. Do you want to replace it?"), a window of
    /// its own that becomes the active one, with Replace (mnemonic R). No question, no answer:
    /// the test then sees the dialog's result without the overwrite.
    public static func gtkChooseReplacing(_ window: String, path: String) {
        gtkChoose(window, path: path)
        guard let question = waitForActiveWindow(otherThan: window) else { return }
        waitUntilReady(question)
        key(question, "alt+r")
    }

    /// A visible window whose name matches `title`, if one appears within `seconds` (quietly:
    /// none appearing is an answer, not a failure).
    static func windowAppearing(_ title: String, seconds: Double) -> String? {
        let deadline = Deadline(secondsFromNow: seconds)
        while true {
            if let window = windows(title).last { return window }
            if deadline.hasPassed { return nil }
            pause(milliseconds: 100)
        }
    }

    /// The name (title) of `window`.
    static func windowName(_ window: String) -> String? {
        Command.run(["xdotool", "getwindowname", window], timeoutSeconds: 5).lines.last
    }

    /// `text` as a regular expression (xdotool's, POSIX extended) that matches only itself.
    static func regexEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\.^$|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// A GTK folder chooser: leave "Recent" (where xdg-desktop-portal-gtk 1.14 opens, and where
    /// a folder chooser accepts nothing) for the home folder (Alt+Home), go into `path` through
    /// the location field, then press the accept button by its mnemonic (`acceptKey`, e.g.
    /// `alt+u` for a label `_Use`): Return in a folder chooser's location field only goes in.
    public static func gtkChooseFolder(_ window: String, path: String, acceptKey: String) {
        key(window, "alt+Home")
        settleTyping()
        gtkChoose(window, path: path.hasSuffix("/") ? path : path + "/")
        settleTyping()
        key(window, acceptKey)
        settleTyping()
        debugShot("after-accept")
    }

    /// A GTK chooser for several files: leave "Recent" (Alt+Home), go into `folder` through
    /// the location field, select every file of the list (Ctrl+A), accept (Return).
    ///
    /// Ctrl+A selects all only while the file list has the keyboard; after the location field
    /// took the folder, whether focus has moved to the list depends on how soon the folder
    /// loaded (on a loaded machine it had not, and only the first file came back). So the rig
    /// clicks an empty part of the list first, as a person would, and gives the folder time to
    /// fill in. If the dialog is still open after Return, it goes to the folder and does it all
    /// again, as a person would: the Return that should have gone into the folder was seen
    /// taken by the location field's completion (the list still showed the empty home folder),
    /// and selecting all and accepting twice is the same as once.
    public static func gtkChooseAll(_ window: String, in folder: String) {
        key(window, "alt+Home")
        settleTyping()
        for _ in 0..<3 {
            gtkChoose(window, path: folder.hasSuffix("/") ? folder : folder + "/")
            settleTyping()
            pause(milliseconds: 300)
            settleTyping()
            clickListArea(window)
            settleTyping()
            key(window, "ctrl+a")
            settleTyping()
            key(window, "Return")
            debugShot("after-select-all")
            if waitUntilClosed(window, seconds: 5) { return }
        }
    }

    /// Waits until `window` is no longer viewable (closed, or unmapped); whether it is.
    static func waitUntilClosed(_ window: String, seconds: Double) -> Bool {
        let deadline = Deadline(secondsFromNow: seconds)
        while !deadline.hasPassed {
            if !Command.run(["xwininfo", "-id", window], timeoutSeconds: 5).stdout.contains("IsViewable") { return true }
            pause(milliseconds: 100)
        }
        return false
    }

    /// Clicks well below the rows of a file chooser's list (60% across, 70% down: right of the
    /// places sidebar, below a handful of rows), which gives the list the keyboard.
    static func clickListArea(_ window: String) {
        let geometry = Command.run(["xdotool", "getwindowgeometry", "--shell", window]).lines
        func value(_ name: String) -> Int? {
            geometry.first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        guard let width = value("WIDTH"), let height = value("HEIGHT") else { return }
        focus(window)
        Command.run(["xdotool", "mousemove", "--window", window, String(width * 6 / 10), String(height * 7 / 10), "click", "1"])
    }

    /// With WHARF_RIG_SHOTS=DIR, a numbered screenshot of each step (for debugging the rig).
    static func debugShot(_ name: String) {
        guard let dir = getenv("WHARF_RIG_SHOTS").map({ String(cString: $0) }) else { return }
        let n = shotCounter.withValue { $0 += 1; return $0 }
        _ = screenshot(dir + "/\(n)-\(name).png")
    }
    static let shotCounter = Locked(0)

    /// The window that has the keyboard.
    public static func focusedWindow() -> String? {
        Command.run(["xdotool", "getwindowfocus"], timeoutSeconds: 5).lines.last
    }

    /// After a key that makes GTK do work (go into a folder, open a field): wait for it.
    public static func settleTypingForRig() { settleTyping() }

    /// Saves a screenshot of the whole screen to `path` (PNG).
    public static func screenshot(_ path: String) -> Bool {
        Command.run(["import", "-window", "root", path], timeoutSeconds: 30).status == 0
    }

    /// After Ctrl+L GTK shows the location field on its next frame; typing before that goes
    /// to the type-ahead search. Wait for the window to be drawn and still.
    static func waitForLocationField() {
        settleTyping()
    }

    /// Waits until what was sent has been taken in and drawn: the focused window's pixels stop
    /// changing (two captures 80 ms apart agree; the rig turns GTK's cursor blinking and
    /// animations off in settings.ini so that a window at rest is still), at most 5 s.
    static func settleTyping() {
        guard let window = activeWindow() else { return pause(milliseconds: 200) }
        waitUntilStill(window)
    }

    /// Waits until `window` looks the same twice in a row (or `seconds` passed).
    public static func waitUntilStill(_ window: String, seconds: Double = 5) {
        let deadline = Deadline(secondsFromNow: seconds)
        var previous: [UInt8]? = nil
        var captures = 0
        while !deadline.hasPassed {
            let output = Command.run(["import", "-window", window, "-depth", "8", "rgb:-"], timeoutSeconds: 3, binary: true)
            // A window that went away (the dialog accepted and closed) has nothing left to settle.
            if output.status != 0 || output.bytes.isEmpty { return }
            let capture = output.bytes
            captures += 1
            if let previous, previous == capture, !capture.isEmpty { return }
            if getenv("WHARF_RIG_VERBOSE") != nil, let previous {
                let differing = zip(previous, capture).filter { $0 != $1 }.count
                print("rig: window \(window) still changing (\(differing) bytes, \(previous.count) vs \(capture.count))")
            }
            previous = capture
            pause(milliseconds: 80)
        }
        print("rig: window \(window) never looked still in \(seconds) s (\(captures) captures)")
    }

    public static func pause(milliseconds: Int) { ProcessControl.sleep(milliseconds: milliseconds) }
}
