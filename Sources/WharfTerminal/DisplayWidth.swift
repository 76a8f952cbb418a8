import WharfSystem

/// How many columns text takes on a terminal, and text cut to fit: wide characters (CJK,
/// most emoji) take two, combining marks none, so a name lines up whatever script it is in.
public enum DisplayWidth {
    /// The columns `text` takes. Text is expected to be printable (``TerminalText`` escapes
    /// controls); a character the locale does not know counts as one column.
    public static func columns(_ text: String) -> Int {
        widths(text).reduce(0) { $0 + $1.width }
    }

    /// `text` cut to at most `limit` columns, with `…` at the end when something was cut; the
    /// columns the result takes.
    public static func fit(_ text: String, to limit: Int) -> (text: String, columns: Int) {
        guard limit > 0 else { return ("", 0) }
        let measured = widths(text)
        let total = measured.reduce(0) { $0 + $1.width }
        if total <= limit { return (text, total) }
        var result = String.UnicodeScalarView()
        var used = 0
        for (scalar, width) in measured {
            if used + width > limit - 1 { break }
            result.append(scalar)
            used += width
        }
        // Combining marks that belong to the last character kept stay with it.
        return (String(result) + "…", used + 1)
    }

    /// Each scalar of `text` with its width (at least 0).
    static func widths(_ text: String) -> [(scalar: Unicode.Scalar, width: Int)] {
        let scalars = Array(text.unicodeScalars)
        // ASCII is one column a character: no need to ask the locale.
        if scalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return scalars.map { ($0, 1) } }
        let measured = CharacterWidth.widths(of: scalars.map(\.value))
        return scalars.enumerated().map { index, scalar in
            if let width = measured?[index], width >= 0 { return (scalar, width) }
            return (scalar, fallbackWidth(scalar))
        }
    }

    /// Without a UTF-8 locale, or for what it does not know: marks take none, the rest one.
    private static func fallbackWidth(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: 0
        default: 1
        }
    }
}
