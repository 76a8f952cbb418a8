import WharfContentTypes
import WharfServer

/// What the three completion scripts share.
enum Completion {
    /// A description a shell can show: the prose up to the end of its first clause, plain,
    /// with only letters, digits, spaces and a few harmless marks kept (no brackets or colons,
    /// which zsh's specifications would read).
    static func describe(_ text: String) -> String {
        var plain = HelpText.plain(text)
        for end in [". ", ": ", " ("] {
            if let range = plain.firstRange(of: end) { plain = String(plain[..<range.lowerBound]) }
        }
        if plain.hasSuffix(".") { plain.removeLast() }
        var result = ""
        for character in plain {
            let keep = character.isLetter || character.isNumber || " ,.-/;$~'".contains(character)
            let next: Character = keep ? character : " "
            if next == " ", result.last == " " { continue }
            result.append(next)
        }
        return result.trimmingSpaces
    }

    /// Single-quoted for bash and zsh.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    /// Single-quoted for fish, where a backslash escapes a quote inside quotes.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    /// The spellings of every option that takes a value in the next word (`--framing MODE`);
    /// a word after one of them is a value, not a command.
    static func optionsTakingNextWord(_ reference: CommandLineReference) -> [String] {
        var names: [String] = []
        for option in reference.options + reference.commands.flatMap(\.options) {
            guard let value = option.value, !value.isOptional else { continue }
            for name in option.names where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// Words offered as they are, and words that take a file after a colon (`script:FILE`).
    static func choiceWords(_ choices: [ValueChoice]) -> (plain: [String], withFile: [String]) {
        (choices.filter { $0.fileArgument == nil }.map(\.word), choices.filter { $0.fileArgument != nil }.map(\.word))
    }

    /// The identifiers offered for a content type: Wharf's own table of system types, so a
    /// completion never offers a type wharf would refuse, and a type added to the table is
    /// offered from the next build on. (Dynamic `dyn.` identifiers and a client's declared types
    /// are not worth completing.)
    static var contentTypes: [String] { ContentTypeRegistry.systemIdentifiers }
}
