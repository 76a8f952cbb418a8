/// The command line described once, as data: `--help`, the `wharf.1` manual page and the shell
/// completions are all rendered from a value of this type, and a test checks that the parser
/// accepts exactly what it describes. Adding an option means adding it here (in
/// `CommandLineReference.wharf`), then to the parser; the test fails until both agree.
///
/// Text fields are plain prose with one markup: `backquoted` words are literal (shown bold in the
/// manual, as they are in the help). Placeholders (`FILE`, `MODE`) are upper case.
public struct CommandLineReference: Sendable {
    /// The program's name, as typed.
    public var program: String
    /// One line for the manual's NAME section.
    public var tagline: String
    /// The forms of the top-level command (without the program name), e.g.
    /// `[--stdio] [OPTION]...` and `--help | --version`; each subcommand adds its own form.
    public var synopsis: [String]
    /// What the program is, paragraph by paragraph.
    public var description: [String]
    /// The top-level options: those of the server and `--help`/`--version`.
    public var options: [CommandLineOption]
    public var commands: [Subcommand]
    public var exitStatuses: [Entry]
    public var environment: [Entry]
    public var files: [Entry]
    /// Paragraphs for the manual only (standard streams, state, the protocol).
    public var notes: [Entry]
    /// Other manual pages, `name(section)`.
    public var seeAlso: [String]

    /// Every option the command line knows, the top level's and each subcommand's, once per
    /// spelling.
    public var allOptionNames: Set<String> {
        var names = Set(options.flatMap(\.names))
        for command in commands { names.formUnion(command.options.flatMap(\.names)) }
        return names
    }

    /// The first words of every subcommand (`types`, `access`).
    public var commandGroups: [String] {
        var seen: [String] = []
        for command in commands where !seen.contains(command.words[0]) { seen.append(command.words[0]) }
        return seen
    }
}

/// A term and its explanation: an exit status, an environment variable, a file, a note.
public struct Entry: Sendable {
    public var term: String
    public var text: String

    public init(_ term: String, _ text: String) {
        self.term = term
        self.text = text
    }
}

public struct CommandLineOption: Sendable {
    /// Every spelling, short first: `["-h", "--help"]`.
    public var names: [String]
    /// Nil for a flag.
    public var value: OptionValue?
    /// What it does, for the help and the manual.
    public var summary: String
    /// More, for the manual only.
    public var details: String?

    public init(_ names: [String], _ value: OptionValue?, _ summary: String, details: String? = nil) {
        self.names = names
        self.value = value
        self.summary = summary
        self.details = details
    }

    /// A flag.
    public init(_ names: [String], _ summary: String, details: String? = nil) {
        self.init(names, nil, summary, details: details)
    }

    /// `--framing MODE`, `--listen[=PATH]`, `-h, --help`. An optional value is spelled with its
    /// `=`, since that is the only way to give it (`--listen PATH` is refused).
    public var term: String {
        let spelled = names.joined(separator: ", ")
        guard let value else { return spelled }
        return value.isOptional ? "\(spelled)[=\(value.placeholder)]" : "\(spelled) \(value.placeholder)"
    }
}

public struct OptionValue: Sendable {
    public var placeholder: String
    public var kind: ValueKind
    /// As the user would type it; nil when there is none or it depends on the environment (say so
    /// in the summary then).
    public var defaultValue: String?
    /// `--listen[=PATH]`: the option may stand alone, or take its value as `--listen=PATH`.
    public var isOptional: Bool

    public init(_ placeholder: String, _ kind: ValueKind, default defaultValue: String? = nil, optional: Bool = false) {
        self.placeholder = placeholder
        self.kind = kind
        self.defaultValue = defaultValue
        self.isOptional = optional
    }
}

/// What a value or an operand may be: tells the completions what to offer and the agreement test
/// what to try.
public enum ValueKind: Sendable {
    /// One of these words (`auto`, `lsp`, `ndjson`), some with an argument (`script:FILE`).
    case choice([ValueChoice])
    case file
    case directory
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A Uniform Type Identifier (`public.png`); completed from Wharf's own table of system types.
    case contentType
    /// Anything else; `example` is a valid value, for the agreement test.
    case text(example: String)
}

public struct ValueChoice: Sendable {
    public var word: String
    /// `script:FILE`: the word, a colon, then a path named by this placeholder.
    public var fileArgument: String?
    public var summary: String?

    public init(_ word: String, fileArgument: String? = nil, _ summary: String? = nil) {
        self.word = word
        self.fileArgument = fileArgument
        self.summary = summary
    }

    /// `auto`, `script:FILE`.
    public var spelled: String { fileArgument.map { "\(word):\($0)" } ?? word }
}

/// A command under the program: `wharf types identify [--no-sniff] FILE...`.
public struct Subcommand: Sendable {
    /// `["types", "identify"]`; commands sharing a first word form a group (`wharf types …`).
    public var words: [String]
    public var options: [CommandLineOption]
    public var operands: [Operand]
    public var summary: String
    public var details: String?

    public init(_ words: [String], options: [CommandLineOption] = [], operands: [Operand] = [], _ summary: String, details: String? = nil) {
        self.words = words
        self.options = options
        self.operands = operands
        self.summary = summary
        self.details = details
    }

    /// `types identify [--no-sniff] FILE...`: words, then each option (bracketed), then operands;
    /// a command with more than three options says `[OPTION]...` (they are listed below it).
    /// `--help`, which every command takes, is left out.
    public var form: String {
        var parts = words
        let shown = options.filter { !$0.names.contains("--help") }
        if shown.count > 3 {
            parts.append("[OPTION]...")
        } else {
            for option in shown { parts.append("[\(option.term)]") }
        }
        for operand in operands { parts.append(operand.spelled) }
        return parts.joined(separator: " ")
    }
}

public struct Operand: Sendable {
    public var placeholder: String
    public var kind: ValueKind
    /// `FILE...`: one or more.
    public var repeats: Bool
    /// `[PATH]`.
    public var isOptional: Bool

    public init(_ placeholder: String, _ kind: ValueKind, repeats: Bool = false, optional: Bool = false) {
        self.placeholder = placeholder
        self.kind = kind
        self.repeats = repeats
        self.isOptional = optional
    }

    public var spelled: String {
        let word = repeats ? "\(placeholder)..." : placeholder
        return isOptional ? "[\(word)]" : word
    }
}
