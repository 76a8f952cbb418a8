import WharfJSONRPC
import WharfSystem

/// What the command line asks `wharf` to do.
public enum Command: Sendable, Equatable {
    /// Serve one client over standard input and output (the default).
    case serve(ServerOptions)
    case help
    case version
}

/// A command line we cannot act on; the message says which word and why.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public enum CommandLineParser {
    public static let usage = """
        Usage: wharf [--stdio] [options]
               wharf --help | --version

        Wharf serves SwiftUI-style file import and export dialogs to editors and tools as a
        JSON-RPC 2.0 server over standard input and output, like a language server. Editors
        spawn it and speak the protocol described in protocol/README.md.

        Options:
          --stdio                     Serve one client over stdin/stdout (the default).
          --framing MODE              auto (default), lsp or ndjson. auto picks NDJSON when the
                                      first non-blank byte is '{' or '[', and LSP framing
                                      (Content-Length headers) otherwise. Replies use the
                                      client's framing.
          --max-message-bytes N       Discard longer messages unread and answer -32600
                                      (default 67108864, 64 MiB).
          --log-level LEVEL           error, warning (default), info or debug.
          --log-file PATH             Append logs to PATH instead of standard error.
          -h, --help                  Show this help.
          --version                   Show the version.

        Standard output carries only protocol messages; logs go to standard error or --log-file.
        Exit status: 0 after shutdown and exit, 1 when input ends (or a signal arrives) without
        shutdown or the input is truncated, 2 for a bad command line.
        """

    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        var options = ServerOptions()
        var index = 0
        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            var argument = arguments[index]
            // `--flag=value` is the same as `--flag value`.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                var expanded = arguments
                expanded[index] = String(argument[..<equals])
                expanded.insert(String(argument[argument.index(after: equals)...]), at: index + 1)
                return try parse(expanded)
            }
            switch argument {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--stdio":
                break
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
                options.logFile = try value(for: argument)
            default:
                argument = argument.isEmpty ? "''" : argument
                throw UsageError(message: "unknown argument \(argument)")
            }
            index += 1
        }
        return .serve(options)
    }
}
