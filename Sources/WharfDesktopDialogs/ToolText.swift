/// Text that zenity and kdialog get on their command line, made fit for it.
///
/// An argument cannot hold a NUL (`posix_spawn` refuses the whole command line, so a title
/// with one meant no dialog at all), and every text a tool gets here is one line on screen: the
/// window title (the message rides in it, since neither tool shows a message in a file
/// dialog: zenity ignores `--text` there) and the names of filters in a menu. A newline would
/// also end a filter in kdialog's filter argument. So each control character (Unicode's `Cc`:
/// C0, DEL, C1) becomes a space there. In a glob it becomes `?`, which still matches that
/// byte; a MIME type that holds one is no MIME type and is left out.
enum ToolText {
    /// `text` with every control character a space.
    static func line(_ text: String) -> String { replacingControls(text, with: " ") }

    /// `glob` with every control character `?`.
    static func glob(_ glob: String) -> String { replacingControls(glob, with: "?") }

    static func hasControls(_ text: String) -> Bool { text.unicodeScalars.contains(where: isControl) }

    private static func replacingControls(_ text: String, with replacement: Unicode.Scalar) -> String {
        guard hasControls(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? replacement : scalar) }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
}
