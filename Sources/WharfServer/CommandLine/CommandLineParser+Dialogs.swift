import WharfDesktopDialogs
import WharfFileManagers
import WharfSystem

/// `wharf pick`: which files to ask for.
public struct PickCommand: Sendable, Equatable {
    /// Content type identifiers the person may pick (`public.item` when none are given).
    public var types: [String] = []
    public var multiple = false
    /// Pick folders instead of files.
    public var directory = false
    public var title: String?
    /// Print the paths separated by NUL instead of newlines (`-0`), for `xargs -0`.
    public var nulSeparated = false
    /// `auto`: the desktop's dialog when one is usable, else the terminal.
    public var presenter = PresenterSetting.desktopOrTerminal
    public var stateDirectory: FilePath?

    public init() {}
}

/// `wharf save`: what to save, and as what.
public struct SaveCommand: Sendable, Equatable {
    /// The suggested file name (by default FILE's own name, or `Untitled`).
    public var name: String?
    /// The content type it is written as (from the name's extension when not given).
    public var type: String?
    public var title: String?
    /// The file to save; standard input when nil.
    public var file: FilePath?
    /// `auto`: the desktop's dialog when one is usable, else the terminal.
    public var presenter = PresenterSetting.desktopOrTerminal
    public var stateDirectory: FilePath?

    public init() {}
}

/// `wharf move`: which files, and where to (a folder a person chooses, or `--to`).
public struct MoveCommand: Sendable, Equatable {
    /// The files (or folders) to move, as given: relative ones from the current folder.
    public var files: [FilePath] = []
    /// The folder to move them into without asking anyone; nil shows a folder dialog.
    public var folder: FilePath?
    public var title: String?
    public var nulSeparated = false
    /// `auto`: the desktop's dialog when one is usable, else the terminal.
    public var presenter = PresenterSetting.desktopOrTerminal
    public var stateDirectory: FilePath?

    public init() {}
}

extension CommandLineParser {
    static func parseMove(_ arguments: [String]) throws(UsageError) -> MoveCommand {
        var command = MoveCommand()
        var words = CommandWords(arguments, command: "move")
        var operands: [String] = []
        var presenterGiven = false
        while let word = words.next() {
            switch word {
            case "--to": command.folder = try path(try words.value(for: word), for: word)
            case "--title": command.title = try words.value(for: word)
            case "-0": command.nulSeparated = true
            case "--presenter":
                command.presenter = try dialogPresenterSetting(try words.value(for: word))
                presenterGiven = true
            case "--state-dir": command.stateDirectory = try path(try words.value(for: word), for: word)
            case "--": while let operand = words.next() { operands.append(operand) }
            case let operand where !operand.hasPrefix("-"): operands.append(operand)
            default: throw UsageError(message: "move: unknown argument \(word)")
            }
        }
        guard !operands.isEmpty else { throw UsageError(message: "move: name at least one FILE to move") }
        for operand in operands { command.files.append(try path(operand, for: "move")) }
        if command.folder != nil && (presenterGiven || command.title != nil) {
            throw UsageError(message: "move: --to moves without a dialog; it takes no --presenter or --title")
        }
        return command
    }

    static func parsePick(_ arguments: [String]) throws(UsageError) -> PickCommand {
        var command = PickCommand()
        var words = CommandWords(arguments, command: "pick")
        while let word = words.next() {
            switch word {
            case "--type": command.types.append(try words.value(for: word))
            case "--multiple": command.multiple = true
            case "--directory": command.directory = true
            case "--title": command.title = try words.value(for: word)
            case "-0": command.nulSeparated = true
            case "--presenter": command.presenter = try dialogPresenterSetting(try words.value(for: word))
            case "--state-dir": command.stateDirectory = try path(try words.value(for: word), for: word)
            default: throw UsageError(message: "pick: unknown argument \(word) (see wharf pick --help)")
            }
        }
        if command.directory && !command.types.isEmpty {
            throw UsageError(message: "pick: --directory picks folders; it takes no --type")
        }
        return command
    }

    static func parseSave(_ arguments: [String]) throws(UsageError) -> SaveCommand {
        var command = SaveCommand()
        var words = CommandWords(arguments, command: "save")
        var file: String?
        while let word = words.next() {
            switch word {
            case "--name": command.name = try words.value(for: word)
            case "--type": command.type = try words.value(for: word)
            case "--title": command.title = try words.value(for: word)
            case "--presenter": command.presenter = try dialogPresenterSetting(try words.value(for: word))
            case "--state-dir": command.stateDirectory = try path(try words.value(for: word), for: word)
            case let operand where !operand.hasPrefix("-") || operand == "-":
                guard file == nil else { throw UsageError(message: "save: expected one FILE at most, got \(file!) and \(operand)") }
                file = operand
            default: throw UsageError(message: "save: unknown argument \(word) (see wharf save --help)")
            }
        }
        if let name = command.name {
            guard !name.isEmpty, !name.contains("/") else { throw UsageError(message: "save: --name is a file name, without /") }
        }
        if let file, file != "-" { command.file = try path(file, for: "save") }
        return command
    }

    /// `--presenter`'s value: `auto`, `portal`, `zenity`, `kdialog`, `terminal`, a terminal file
    /// manager (`fzf`, `lf`, `nnn`, `ranger`, `vifm`, `yazi`) or `script:FILE`.
    static func presenterSetting(_ raw: String) throws(UsageError) -> PresenterSetting {
        if let kind = DesktopPresenterKind(rawValue: raw) { return .desktop(kind) }
        if let kind = FileManagerKind(rawValue: raw) { return .fileManager(kind) }
        if raw == "auto" { return .auto }
        if raw == "terminal" { return .terminal }
        if raw.hasPrefix("script:"), raw.count > 7 { return .script(try path(String(raw.dropFirst(7)), for: "--presenter")) }
        throw UsageError(message: "--presenter: expected auto, portal, zenity, kdialog, terminal, fzf, lf, nnn, ranger, vifm, yazi or script:FILE, got \(raw)")
    }

    /// `wharf pick`, `wharf save` and `wharf move`'s `--presenter`: as for the server, except that
    /// `auto` falls back to the terminal when no desktop dialog is usable.
    static func dialogPresenterSetting(_ raw: String) throws(UsageError) -> PresenterSetting {
        let setting = try presenterSetting(raw)
        return setting == .auto ? .desktopOrTerminal : setting
    }
}

/// A subcommand's words, one at a time, with `--flag=value` read as `--flag value`.
struct CommandWords {
    private var words: [String]
    private var index = 0
    let command: String

    init(_ arguments: [String], command: String) {
        self.command = command
        words = arguments.flatMap { word -> [String] in
            guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return [word] }
            return [String(word[..<equals]), String(word[word.index(after: equals)...])]
        }
    }

    mutating func next() -> String? {
        guard index < words.count else { return nil }
        defer { index += 1 }
        return words[index]
    }

    mutating func value(for flag: String) throws(UsageError) -> String {
        guard let value = next() else { throw UsageError(message: "\(command): \(flag) needs a value") }
        return value
    }
}
