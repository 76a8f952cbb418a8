/// Writing roff for the man(7) macros by hand: what must be escaped so that groff prints the
/// text as written and warns about nothing.
enum Roff {
    /// Text for a line of running text: backslashes doubled as `\e`, characters beyond ASCII as
    /// `\[uXXXX]` (so the page does not depend on the reader's locale or preconv), and a minus
    /// that starts a word (`-32600`, `--stdio`) as `\-`, so that it prints as a minus a reader
    /// can copy rather than a hyphen. Hyphens inside words stay hyphens. A `.` or `'` that
    /// starts the text or a line of it gets `\&` in front, or it would be read as a request.
    static func escape(_ text: String, everyMinus: Bool = false) -> String {
        var result = ""
        var previous: Character = "\n"
        for character in text {
            if previous == "\n", character == "." || character == "'" { result += "\\&" }
            switch character {
            case "\\": result += "\\e"
            case "-" where everyMinus || !(previous.isLetter || previous.isNumber): result += "\\-"
            default:
                if let ascii = character.asciiValue, ascii >= 0x20 || ascii == 0x09 || ascii == 0x0A {
                    result.append(character)
                } else {
                    for scalar in character.unicodeScalars { result += unicodeEscape(scalar) }
                }
            }
            previous = character
        }
        return result
    }

    /// Literal text (a command, an option, code): every `-` a minus.
    static func literal(_ text: String) -> String {
        escape(text, everyMinus: true)
    }

    static func bold(_ literalText: String) -> String { "\\fB\(literal(literalText))\\fR" }

    /// After `.TH`: no hyphenation (a path, an identifier or an option broken at a hyphen the
    /// line end added reads as something else) and a ragged right margin (lines full of code
    /// words cannot be spread evenly, and groff warns when it tries).
    static let layout = [".nh", ".ad l"]
    static func italic(_ text: String) -> String { "\\fI\(escape(text))\\fR" }

    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        var hex = String(scalar.value, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        return "\\[u\(hex)]"
    }
}

extension String {
    /// Every occurrence of `target` replaced (the standard library has no such method without
    /// Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
