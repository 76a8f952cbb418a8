import WharfSystem

/// A dialog program's end as a dialog result.
///
/// Exit status: 0 chosen (with output), 1 the human cancelled (Cancel, Escape, closing the
/// window), 5 zenity's timeout, anything else (zenity's -1/255, a crash) failed, with the end of
/// what it wrote to standard error. One exit 1 is no cancel: GTK that cannot open its display
/// (a stale `DISPLAY`, a dead X server, `WAYLAND_DISPLAY` without a compositor) prints
/// `cannot open display` and exits 1 before any window was shown (see
/// ``displayFailure(in:)``). A child killed by our own cancel is reported by the session as the
/// caller's cancellation, whatever its status.
public enum ToolExit {
    /// How a child ended, as `waitpid` tells it.
    public typealias Status = Subprocess.Ending

    public static func result(
        kind: DesktopPresenterKind, status: Status, stdout: [UInt8], stderr: [UInt8], request: DesktopDialogRequest,
        exists: ([UInt8]) -> Bool = { path in FilePath(bytes: path).map { (try? FileStatus.ofLink($0)) != nil } ?? false }
    ) -> DesktopDialogResult {
        let name = kind.rawValue
        if let ended = ending(kind: kind, status: status, stdout: stdout, stderr: stderr) { return ended }
        let parsed = kind == .kdialog ? ToolOutput.kdialogPaths(stdout) : ToolOutput.zenityPaths(stdout)
        guard let paths = parsed, !paths.isEmpty else {
            if stdout.isEmpty || stdout == [UInt8(ascii: "\n")] { return .cancelled(.user) }
            return .failed(unreadable(name))
        }
        var choice = DesktopDialogChoice(paths: paths)
        switch request.kind {
        case .open(let multiple, _):
            if !multiple && paths.count != 1 { return .failed("\(name) returned \(paths.count) paths for a single choice") }
            // Every chosen file exists; one that does not is a name the tool could not print.
            if !paths.allSatisfy(exists) { return .failed(unreadable(name)) }
        case .save:
            guard paths.count == 1 else { return .failed("\(name) returned \(paths.count) paths for one place to save") }
            if kind == .kdialog, let problem = kdialogSaveProblem(paths[0], exists: exists) { return .failed(problem) }
            choice.overwriteConfirmed = true   // --confirm-overwrite; Qt's save dialog asks by default
        case .saveFiles(let files):
            guard paths.count == 1, exists(paths[0]) else { return .failed(unreadable(name)) }
            let folder = paths[0]
            choice.folder = folder
            choice.paths = files.map { ZenityArguments.withTrailingSlash(folder) + $0 }
        }
        return .chosen(choice)
    }

    /// The answer to ``DesktopReplaceQuestion``: replace (`.chosen`, with `overwriteConfirmed`)
    /// or not (`.cancelled(.user)`, for Escape and the window closed too); a failure as for a
    /// file dialog. zenity: 0 is Replace, 1 the rest. kdialog focuses its Yes button, with no
    /// way to choose another, so Yes is the answer that replaces nothing (see
    /// ``KDialogArguments/question(_:)``): 1 (No) is Replace, 0 and 2 (Escape) the rest.
    public static func answer(kind: DesktopPresenterKind, status: Status, stderr: [UInt8]) -> DesktopDialogResult {
        let replace = DesktopDialogResult.chosen(DesktopDialogChoice(paths: [], overwriteConfirmed: true))
        if kind == .kdialog {
            switch status {
            case .exited(0), .exited(2): return .cancelled(.user)
            case .exited(1): return replace
            default: break
            }
        }
        return ending(kind: kind, status: status, stdout: [], stderr: stderr) ?? replace
    }

    /// The result of any end but exit 0 (which has output to read), or nil.
    private static func ending(kind: DesktopPresenterKind, status: Status, stdout: [UInt8], stderr: [UInt8]) -> DesktopDialogResult? {
        let name = kind.rawValue
        switch status {
        case .exited(0):
            return nil
        case .exited(1):
            if stdout.isEmpty, let line = displayFailure(in: stderr) { return .failed("\(name) exited with status 1: \(line)") }
            return .cancelled(.user)
        case .exited(5) where kind == .zenity:
            return .cancelled(.timedOut)
        case .exited(let code), .killed(let code):
            let how = status == .exited(code) ? "exited with status \(code)" : "was killed by signal \(code)"
            let said = lastLine(of: stderr)
            return .failed("\(name) \(how)" + (said.isEmpty ? "" : ": \(said)"))
        }
    }

    /// Why kdialog's save path cannot be the place the human chose, if it cannot. kdialog prints
    /// a name that is not UTF-8 with U+FFFD (EF BF BD) in place of each byte it cannot say and
    /// exits 0; and a save's path need not exist, so the open dialogs' check does not catch it.
    /// Taken as printed it is another, new file (saving over `caf\xE9.txt` wrote `caf�.txt`), and
    /// the overwrite the human confirmed would not be the one made. So a path holding U+FFFD, or
    /// whose folder does not exist as printed (a folder's name was mangled), fails.
    static func kdialogSaveProblem(_ path: [UInt8], exists: ([UInt8]) -> Bool) -> String? {
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        let mangled = path.indices.contains { path[$0...].starts(with: replacement) }
        if mangled {
            return "kdialog returned a path with U+FFFD in place of bytes it could not print (kdialog cannot print "
                + "file names that are not valid UTF-8), so where to save is not known"
        }
        return exists(PortalResponse.parent(of: path)) ? nil : unreadable("kdialog")
    }

    static func unreadable(_ name: String) -> String {
        "\(name) returned a path that cannot be read back exactly (\(name) cannot print file names that are not valid UTF-8)"
    }

    static func lastLine(of stderr: [UInt8]) -> String { lines(of: stderr).last ?? "" }

    /// The line of `stderr` in which GTK says it cannot open the display, as `gtk_init` words
    /// it: `(zenity:42): Gtk-WARNING **: 07:08:25.407: cannot open display: :77` (the time
    /// since GLib 2.50; the display's name empty for Wayland). Only that exact warning counts:
    /// GTK prints other warnings on an ordinary cancel, and a warning may quote a file name.
    static func displayFailure(in stderr: [UInt8]) -> String? {
        let marker = "Gtk-WARNING **: "
        return lines(of: stderr).first { line in
            // By bytes (TextSearch): a split on a string would link Swift's regex modules.
            guard let found = line.firstRange(ofASCII: marker) else { return false }
            return withoutTime(line[found.upperBound...]).hasPrefix("cannot open display:")
        }
    }

    /// `07:08:25.407: message` → `message`; anything else as it is.
    private static func withoutTime(_ text: Substring) -> Substring {
        let shape = Array("00:00:00.000: ".utf8), zero = UInt8(ascii: "0")
        let head = text.utf8.prefix(shape.count)
        let isTime = head.count == shape.count && zip(head, shape).allSatisfy { byte, expected in
            expected == zero ? (zero...zero + 9).contains(byte) : byte == expected
        }
        return isTime ? Substring(text.utf8.dropFirst(shape.count)) : text
    }

    private static func lines(of stderr: [UInt8]) -> [String] {
        stderr.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
            .map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars = scalars.dropFirst() }
        while scalars.last?.isWhitespace == true { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
