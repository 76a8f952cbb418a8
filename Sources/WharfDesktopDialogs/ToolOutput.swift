/// Taking zenity's and kdialog's standard output apart into paths, as bytes.
///
/// **zenity** is run with `--separator=/`. No file *name* can contain `/`, and the paths zenity
/// prints are GLib's canonical absolute paths (`GFile`: no `//`, no trailing `/` except the
/// root itself). So every path is `/` + R, where R is empty (the root) or names joined by single
/// slashes, and the output `P1/P2/…\n` is `/R1//R2//…\n`: drop the leading `/` and the one
/// final newline, split on `//`, put the `/` back on each piece. A newline or any other byte
/// in a name survives. zenity 3.44 converts each path with `g_filename_to_utf8` before
/// printing and prints `(null)` for a name that is not valid UTF-8; that shows up as a piece
/// that is not canonical or (for open dialogs) a path that does not exist, and the dialog fails
/// with that reason rather than returning a wrong path.
///
/// **kdialog** can only print one path per line (`--separate-output`). Every path is absolute,
/// so a line that does not start with `/` continues the previous path after a newline that was
/// part of its name. (A name containing a newline followed by `/` cannot be told apart.)
/// Qt prints a name that is not valid UTF-8 with U+FFFD in place of the bytes it cannot say:
/// an open dialog's path then does not exist, and a save's holds U+FFFD or names a folder that
/// does not exist; either fails (``ToolExit``) rather than returning another file.
public enum ToolOutput {
    public static func zenityPaths(_ output: [UInt8]) -> [[UInt8]]? {
        var text = output[...]
        if text.last == UInt8(ascii: "\n") { text = text.dropLast() }
        guard text.first == UInt8(ascii: "/") else { return nil }
        text = text.dropFirst()
        var paths: [[UInt8]] = []
        var current: [UInt8] = [UInt8(ascii: "/")]
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == UInt8(ascii: "/"), index + 1 < text.endIndex, text[index + 1] == UInt8(ascii: "/") {
                paths.append(current)
                current = [UInt8(ascii: "/")]
                index += 2
                continue
            }
            current.append(text[index])
            index += 1
        }
        paths.append(current)
        // Canonical: no empty name (a "//" left over, a trailing "/") except the root itself.
        let canonical = paths.allSatisfy { $0.count == 1 || $0.last != UInt8(ascii: "/") && !contains($0, [47, 47]) }
        return canonical ? paths : nil
    }

    public static func kdialogPaths(_ output: [UInt8]) -> [[UInt8]]? {
        var text = output[...]
        if text.last == UInt8(ascii: "\n") { text = text.dropLast() }
        guard text.first == UInt8(ascii: "/") else { return nil }
        var paths: [[UInt8]] = []
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.first == UInt8(ascii: "/") || paths.isEmpty {
                paths.append(Array(line))
            } else {
                paths[paths.count - 1] += [UInt8(ascii: "\n")] + line
            }
        }
        return paths
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
