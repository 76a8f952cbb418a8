/// `wharf --help`, rendered from the command line's reference and wrapped to fit 100 columns:
/// the forms, what wharf is, each option and command with its values and default, and the exit
/// statuses. The manual page (`wharf.1`) says the rest.
public enum HelpText {
    public static let width = 100

    public static func render(_ reference: CommandLineReference) -> String {
        var lines: [String] = []
        let forms = reference.synopsis + reference.commands.map(\.form)
        for (index, form) in forms.enumerated() {
            lines.append((index == 0 ? "Usage: " : "       ") + "\(reference.program) \(form)")
        }
        for paragraph in reference.description {
            lines.append("")
            lines += wrap(plain(paragraph), width: width)
        }

        lines += ["", "Options:"]
        lines += table(reference.options.map { ($0.term, optionText($0)) })

        lines += ["", "Commands:"]
        let topLevel = Set(reference.options.flatMap(\.names))
        lines += table(reference.commands.map { command in
            var text = [plain(command.summary)]
            // A command's own options; those shared with the top level are explained above.
            for option in command.options where option.names.allSatisfy({ !topLevel.contains($0) }) {
                text.append("\(option.term): \(plain(option.summary))")
            }
            return (command.form, paragraphs(text))
        })

        lines += ["", "Exit status:"]
        lines += table(reference.exitStatuses.map { ($0.term, paragraphs([plain($0.text)])) })
        lines += ["", "More in the manual pages \(reference.program)(1) and wharf-protocol(7)."]
        return lines.joined(separator: "\n")
    }

    /// `wharf pick --help`, `wharf types --help`: the forms of the commands `words` names (one,
    /// or a group), what each does, and every option each takes, with its values and default.
    public static func render(_ reference: CommandLineReference, command words: [String]) -> String {
        let commands = reference.commands.filter { Array($0.words.prefix(words.count)) == words }
        var lines: [String] = []
        for (index, command) in commands.enumerated() {
            lines.append((index == 0 ? "Usage: " : "       ") + "\(reference.program) \(command.form)")
        }
        for command in commands {
            lines.append("")
            if commands.count > 1 { lines.append(command.words.joined(separator: " ") + ":") }
            lines += wrap(plain(command.summary), width: width)
            if let details = command.details { lines += [""] + wrap(plain(details), width: width) }
            if !command.options.isEmpty {
                lines += ["", "Options:"]
                lines += table(command.options.map { ($0.term, optionText($0)) })
            }
        }
        lines += ["", "More in \(reference.program) --help and the manual page \(reference.program)(1)."]
        return lines.joined(separator: "\n")
    }

    /// An option's text for a column `width` wide: what it does, then its choices, one a line
    /// with its own hanging indent, then its default.
    private static func optionText(_ option: CommandLineOption) -> (Int) -> [String] {
        var text = plain(option.summary)
        var choices: [ValueChoice] = []
        if let value = option.value, case .choice(let all) = value.kind {
            if all.allSatisfy({ $0.summary == nil }) {
                text += " \(value.placeholder) is \(list(all.map(\.spelled)))."
            } else {
                choices = all
            }
        }
        let defaultValue = option.value?.defaultValue
        return { width in
            var lines = wrap(text, width: width)
            let column = (choices.map(\.spelled.count).max() ?? 0) + 4
            for choice in choices {
                let prefix = "  " + padded(choice.spelled, to: column - 2)
                let body = wrap(plain(choice.summary ?? ""), width: width - column)
                lines.append(prefix + (body.first ?? ""))
                lines += body.dropFirst().map { String(repeating: " ", count: column) + $0 }
            }
            if let defaultValue { lines.append("Default: \(defaultValue).") }
            return lines
        }
    }

    /// Terms in a column and their text beside them, wrapped to the columns left; a term too
    /// wide for the column gets its text on the next line.
    private static func table(_ rows: [(term: String, text: (Int) -> [String])]) -> [String] {
        let column = min(rows.map(\.term.count).max() ?? 0, 36) + 4
        var lines: [String] = []
        for row in rows {
            var body = row.text(width - column)
            let term = "  " + row.term
            if term.count + 2 > column {
                lines.append(term)
            } else if let first = body.first {
                lines.append(padded(term, to: column) + first)
                body.removeFirst()
            }
            lines += body.map { String(repeating: " ", count: column) + $0 }
        }
        return lines
    }

    /// Paragraphs wrapped one after the other.
    private static func paragraphs(_ texts: [String]) -> (Int) -> [String] {
        { width in texts.flatMap { wrap($0, width: width) } }
    }

    /// Words filled into lines of at most `width` columns (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The reference's prose for a terminal: `backquoted` words lose their quotes, except a
    /// lone character or several words, which are clearer in single quotes ('{', 'wharf access
    /// list').
    public static func plain(_ text: String) -> String {
        var result = ""
        var literal = ""
        var inLiteral = false
        for character in text {
            if character == "`" {
                if inLiteral { result += literal.count == 1 || literal.contains(" ") ? "'\(literal)'" : literal }
                literal = ""
                inLiteral.toggle()
            } else if inLiteral {
                literal.append(character)
            } else {
                result.append(character)
            }
        }
        return result + literal
    }

    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// `a, b or c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
