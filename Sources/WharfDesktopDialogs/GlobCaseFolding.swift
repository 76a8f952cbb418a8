/// Case-insensitive globs for matchers that are case-sensitive.
///
/// The portal's filter patterns are case-sensitive by its specification (and GTK 3's
/// `gtk_file_filter_add_pattern`, which zenity uses, compares bytes), while shared-mime-info and
/// Wharf match names case-insensitively: `*.png` must also show `PHOTO.PNG`. Every ASCII letter
/// becomes a bracket expression of both cases: `*.png` → `*.[pP][nN][gG]`. Letters inside a
/// bracket expression get their other case added (`[a-c]` → `[a-cA-C]`); an escaped letter
/// (`\a`) is folded like a plain one; anything else is kept as written. Non-ASCII letters are
/// left alone: no glob of the MIME database needs them, and Unicode case folding of file names
/// is not what any of these matchers does.
public enum GlobCaseFolding {
    public static func fold(_ glob: String) -> String {
        var out = ""
        var characters = Array(glob.unicodeScalars)[...]
        while let c = characters.popFirst() {
            switch c {
            case "\\":
                if let next = characters.popFirst() { out += letterClass(next) ?? "\\" + String(next) } else { out += "\\" }
            case "[":
                if let bracket = foldBracket(&characters) { out += bracket } else { out += "[" }
            default:
                out += letterClass(c) ?? String(c)
            }
        }
        return out
    }

    /// `p` → `[pP]`, `P` → `[pP]`; nil for anything but an ASCII letter.
    private static func letterClass(_ c: Unicode.Scalar) -> String? {
        guard c.isASCII, let lower = lowerASCII(c), let upper = upperASCII(c) else { return nil }
        return "[" + String(lower) + String(upper) + "]"
    }

    /// Reads a bracket expression after its `[` and returns it with both cases of its letters,
    /// or nil (input untouched) when it has no closing `]`.
    private static func foldBracket(_ characters: inout ArraySlice<Unicode.Scalar>) -> String? {
        var rest = characters
        var body: [Unicode.Scalar] = []
        if let first = rest.first, first == "!" || first == "^" { body.append(rest.removeFirst()) }
        if rest.first == "]" { body.append(rest.removeFirst()) }
        var closed = false
        while let c = rest.popFirst() {
            if c == "]" { closed = true; break }
            body.append(c)
        }
        guard closed else { return nil }
        characters = rest
        var extra = ""
        var index = body.startIndex
        if let first = body.first, first == "!" || first == "^" { index += 1 }
        while index < body.endIndex {
            let c = body[index]
            if index + 2 < body.endIndex, body[index + 1] == "-",
               let lowerStart = lowerASCII(c), let lowerEnd = lowerASCII(body[index + 2]),
               isSameCaseRange(c, body[index + 2]) {
                let swapped = c == Unicode.Scalar(lowerStart)
                    ? (upperASCII(c)!, upperASCII(body[index + 2])!) : (lowerStart, lowerEnd)
                extra += String(swapped.0) + "-" + String(swapped.1)
                index += 3
                continue
            }
            if let lower = lowerASCII(c), let upper = upperASCII(c) {
                let other = c == lower ? upper : lower
                if !body.contains(other) && !extra.unicodeScalars.contains(other) { extra.unicodeScalars.append(other) }
            }
            index += 1
        }
        return "[" + String(String.UnicodeScalarView(body)) + extra + "]"
    }

    private static func isSameCaseRange(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(a) && ("a"..."z").contains(b) || ("A"..."Z").contains(a) && ("A"..."Z").contains(b)
    }

    private static func lowerASCII(_ c: Unicode.Scalar) -> Unicode.Scalar? {
        if ("a"..."z").contains(c) { return c }
        if ("A"..."Z").contains(c) { return Unicode.Scalar(c.value + 32) }
        return nil
    }

    private static func upperASCII(_ c: Unicode.Scalar) -> Unicode.Scalar? {
        if ("A"..."Z").contains(c) { return c }
        if ("a"..."z").contains(c) { return Unicode.Scalar(c.value - 32) }
        return nil
    }
}
