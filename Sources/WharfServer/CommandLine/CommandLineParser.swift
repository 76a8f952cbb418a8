import WharfJSONRPC
import WharfSystem

/// What the command line asks `wharf` to do.
public enum Command: Sendable, Equatable {
    /// Serve one client over standard input and output (the default).
    case serve(ServerOptions)
    /// `--listen[=PATH]`: the daemon, serving every client of the user on a Unix socket (the
    /// default path when nil, or the socket systemd passes).
    case listen(ServerOptions, socket: FilePath?)
    /// `--connect[=PATH]`: bridge standard input and output to the daemon, starting one with
    /// `daemonArguments` (the other options given) if none listens.
    case connect(socket: FilePath?, daemonArguments: [String])
    case help
    /// `--help` after a command's words (`wharf pick --help`, `wharf types --help`): that
    /// command's help, or its group's.
    case commandHelp([String])
    case version
    /// `wharf types identify FILE…` (and `--no-sniff`), `describe ID…`, `conforms ID TO`.
    case types(TypesCommand)
    /// `wharf access list [--json]` / `wharf access revoke ID`.
    case access(AccessCommand, stateDirectory: FilePath?)
    /// `wharf pick …`: ask a person for files through a dialog, print their paths.
    case pick(PickCommand)
    /// `wharf save …`: ask a person where to save, write the file there.
    case save(SaveCommand)
    /// `wharf move …`: move files into a folder a person chooses (or `--to` names).
    case move(MoveCommand)
    /// `wharf portal …`: xdg-desktop-portal's FileChooser backend (or `--check`).
    case portal(PortalCommand)
}

public enum TypesCommand: Sendable, Equatable {
    case identify(paths: [FilePath], sniff: Bool)
    case describe([String])
    case conforms(String, to: String)
    /// How long loading the shared MIME database took, and what it held.
    case stats
}

public enum AccessCommand: Sendable, Equatable {
    /// `list`, or with `--json` one JSON document instead of the table.
    case list(json: Bool)
    case revoke(String)
}

/// A command line we cannot act on; the message says which word and why.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public enum CommandLineParser {
    /// `wharf --help`: rendered from `CommandLineReference.wharf`, where the options are described.
    public static let usage = HelpText.render(.wharf)

    /// Reads the arguments after the program's name. They are ``ArgumentText`` (what
    /// `ProcessControl.arguments()` gives): words compare as text, and paths are made from the
    /// bytes each argument had.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        if let group = arguments.first, CommandLineReference.wharf.commandGroups.contains(group),
           let help = arguments.firstIndex(where: { $0 == "--help" || $0 == "-h" }) {
            // The words before `--help` that name commands: `types identify --help` is about
            // `types identify`, `types --help` about every `types` command.
            var words = [group]
            if help > 1, CommandLineReference.wharf.commands.contains(where: { $0.words == [group, arguments[1]] }) {
                words.append(arguments[1])
            }
            return .commandHelp(words)
        }
        switch arguments.first {
        case "types": return try parseTypes(Array(arguments.dropFirst()))
        case "access": return try parseAccess(Array(arguments.dropFirst()))
        case "pick": return .pick(try parsePick(Array(arguments.dropFirst())))
        case "save": return .save(try parseSave(Array(arguments.dropFirst())))
        case "move": return .move(try parseMove(Array(arguments.dropFirst())))
        case "portal": return .portal(try parsePortal(Array(arguments.dropFirst())))
        default: break
        }
        var options = ServerOptions()
        /// `--listen` or `--connect`, and the socket path given with it.
        var transport: (flag: String, path: FilePath?)?
        /// Everything but `--connect`, for the daemon a bridge starts.
        var forwarded: [String] = []
        var sawStdio = false
        var index = 0
        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            var argument = arguments[index]
            // `--listen` and `--connect` take their optional value only as `--flag=PATH`.
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if name == "--listen" || name == "--connect" {
                guard transport == nil else {
                    throw UsageError(message: "\(name): only one of --listen and --connect, once")
                }
                var path: FilePath?
                if argument.count > name.count {
                    path = try self.path(String(argument.dropFirst(name.count + 1)), for: name)
                }
                transport = (name, path)
                index += 1
                continue
            }
            // `--flag=value` is the same as `--flag value`.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                var expanded = arguments
                expanded[index] = String(argument[..<equals])
                expanded.insert(String(argument[argument.index(after: equals)...]), at: index + 1)
                return try parse(expanded)
            }
            let start = index
            switch argument {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--stdio":
                sawStdio = true
            case "--framing":
                let raw = try value(for: argument)
                guard let mode = FramingMode(rawValue: raw) else {
                    throw UsageError(message: "--framing: expected auto, lsp or ndjson, got \(raw)")
                }
                options.framing = mode
            case "--max-message-bytes":
                let raw = try value(for: argument)
                guard let bytes = Int(raw), bytes > 0 else {
                    throw UsageError(message: "--max-message-bytes: expected a positive number of bytes, got \(raw)")
                }
                options.maxMessageBytes = bytes
            case "--log-level":
                let raw = try value(for: argument)
                guard let level = Logger.Level(name: raw) else {
                    throw UsageError(message: "--log-level: expected error, warning, info or debug, got \(raw)")
                }
                options.logLevel = level
            case "--log-file":
                options.logFile = try path(value(for: argument), for: argument)
            case "--presenter":
                options.presenter = try presenterSetting(try value(for: argument))
            case "--state-dir":
                options.stateDirectory = try path(value(for: argument), for: argument)
            case "--max-dialogs-per-client":
                let raw = try value(for: argument)
                guard let count = Int(raw), count > 0, count <= 100_000 else {
                    throw UsageError(message: "--max-dialogs-per-client: expected a number from 1 to 100000, got \(raw)")
                }
                options.maxDialogsPerClient = count
            case "--max-requests-per-client":
                options.maxRequestsPerClient = try number(value(for: argument), for: argument, in: 1...1_000_000)
            case "--max-output-bytes-per-client":
                options.maxOutputBytesPerClient = try number(value(for: argument), for: argument, in: 65536...Int(Int32.max))
            case "--max-clients":
                options.maxClients = try number(value(for: argument), for: argument, in: 1...1_000_000)
            case "--max-clients-per-app":
                options.maxClientsPerApp = try number(value(for: argument), for: argument, in: 1...1_000_000)
            case "--max-presenter-bytes-per-app":
                options.maxPresenterBytesPerApp = try number(value(for: argument), for: argument, in: 65536...Int(Int32.max))
            case "--max-open-documents-per-app":
                options.maxOpenDocumentsPerApp = try number(value(for: argument), for: argument, in: 1...1_000_000)
            case "--max-document-bytes-per-app":
                options.maxDocumentBytesPerApp = try number(value(for: argument), for: argument, in: 65536...(1 << 40))
            case "--idle-timeout":
                options.idleTimeoutSeconds = try number(value(for: argument), for: argument, in: 0...31_536_000)
            case "--initialize-timeout":
                options.initializeTimeoutSeconds = try number(value(for: argument), for: argument, in: 0...86_400)
            case "--spin-microseconds":
                options.spinMicroseconds = try number(value(for: argument), for: argument, in: 0...10_000)
            default:
                if index > 0, let flag = ["--listen", "--connect"].first(where: { $0 == arguments[index - 1] }), !argument.hasPrefix("-") {
                    throw UsageError(message: "unknown argument \(argument) (\(flag) takes its path as \(flag)=PATH)")
                }
                if CommandLineReference.wharf.commandGroups.contains(argument) {
                    throw UsageError(message: "unknown argument \(argument) (a command is the first word: wharf \(argument) [OPTION]...)")
                }
                argument = argument.isEmpty ? "''" : argument
                throw UsageError(message: "unknown argument \(argument)")
            }
            index += 1
            forwarded += arguments[start..<index]
        }
        if let transport, sawStdio { throw UsageError(message: "\(transport.flag) and --stdio exclude each other") }
        switch transport {
        case nil:
            return .serve(options)
        case (let flag, let path)? where flag == "--listen":
            return .listen(options, socket: path)
        case (_, let path)?:
            return .connect(socket: path, daemonArguments: forwarded)
        }
    }

    /// A whole number within `range`, or a message naming the option and the range.
    private static func number(_ raw: String, for flag: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(raw), range.contains(value) else {
            throw UsageError(message: "\(flag): expected a number from \(range.lowerBound) to \(range.upperBound), got \(raw)")
        }
        return value
    }

    /// A path argument: anything but empty, made from the bytes the argument had
    /// (``ArgumentText``), not from its text.
    static func path(_ value: String, for flag: String) throws(UsageError) -> FilePath {
        guard let path = FilePath(bytes: ArgumentText.bytes(value)) else { throw UsageError(message: "\(flag): expected a path, got an empty one") }
        return path
    }

    private static func parseTypes(_ arguments: [String]) throws(UsageError) -> Command {
        guard let verb = arguments.first else {
            throw UsageError(message: "types: expected identify, describe, conforms or stats")
        }
        let rest = Array(arguments.dropFirst())
        switch verb {
        case "identify":
            let sniff = !rest.contains("--no-sniff")
            var paths: [FilePath] = []
            for word in rest where word != "--no-sniff" { paths.append(try path(word, for: "types identify")) }
            guard !paths.isEmpty else { throw UsageError(message: "types identify: expected at least one FILE") }
            return .types(.identify(paths: paths, sniff: sniff))
        case "describe":
            guard !rest.isEmpty else { throw UsageError(message: "types describe: expected at least one IDENTIFIER") }
            return .types(.describe(rest))
        case "conforms":
            guard rest.count == 2 else { throw UsageError(message: "types conforms: expected IDENTIFIER PARENT") }
            return .types(.conforms(rest[0], to: rest[1]))
        case "stats":
            return .types(.stats)
        default:
            throw UsageError(message: "types: unknown command \(verb) (identify, describe, conforms, stats)")
        }
    }

    private static func parseAccess(_ arguments: [String]) throws(UsageError) -> Command {
        var words: [String] = []
        var stateDirectory: FilePath?
        var json = false
        var reader = CommandWords(arguments, command: "access")  // `--state-dir=DIR` too, as everywhere
        while let word = reader.next() {
            switch word {
            case "--state-dir": stateDirectory = try path(try reader.value(for: "--state-dir"), for: "--state-dir")
            case "--json": json = true
            default: words.append(word)
            }
        }
        if json && words.first != "list" { throw UsageError(message: "access: --json is an option of `list` only") }
        switch words.first {
        case "list" where words.count == 1:
            return .access(.list(json: json), stateDirectory: stateDirectory)
        case "revoke" where words.count == 2:
            return .access(.revoke(words[1]), stateDirectory: stateDirectory)
        default:
            throw UsageError(message: "access: expected `list` or `revoke ID`")
        }
    }
}
