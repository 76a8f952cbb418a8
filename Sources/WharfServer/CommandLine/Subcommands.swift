import WharfContentTypes
import WharfSystem
import WharfTerminal

/// The commands for people and scripts: `wharf types …` here, `wharf access …` in
/// Commands/AccessCommands.swift. Each prints to standard output and returns the exit status.
public enum Subcommands {
    public static func run(_ command: TypesCommand) -> Int32 {
        let types = ContentTypeScope(registry: .system)
        switch command {
        case .identify(let paths, let sniff):
            var status: Int32 = 0
            var output = ""
            output.reserveCapacity(paths.count * 64)
            for path in paths {
                switch types.identify(path: path, sniff: sniff, followSymlinks: true) {
                case .success(let found):
                    // Escaped as `wharf access list` escapes paths: a tab or newline in a name
                    // would forge a column or a line, and the bytes need not be UTF-8.
                    output += "\(TerminalText.escape(bytes: path.bytes))\t\(found.identifier)\t\(found.mimeType)\t\(found.source.rawValue)\n"
                case .failure(let error):
                    printError("\(error)")
                    status = 1
                }
                if output.utf8.count > 1 << 16 {
                    print(output, terminator: "")
                    output = ""
                }
            }
            print(output, terminator: "")
            return status
        case .describe(let identifiers):
            var status: Int32 = 0
            for identifier in identifiers {
                guard let description = types.describe(identifier) else {
                    printError("unknown content type \(identifier)")
                    status = 1
                    continue
                }
                print(description.identifier)
                print("  description: \(description.description)")
                print("  conforms to: \(description.conformsTo.joined(separator: ", "))")
                print("  supertypes:  \(description.supertypes.joined(separator: ", "))")
                print("  extensions:  \(description.filenameExtensions.joined(separator: ", "))")
                print("  MIME types:  \(description.mimeTypes.joined(separator: ", "))")
                if description.isDynamic { print("  dynamic:     yes") }
            }
            return status
        case .stats:
            let stats = types.registry.load()
            print("load time: \(Int((stats.seconds * 1_000_000).rounded())) µs")
            print("MIME types: \(stats.mimeTypes), glob rules: \(stats.globRules), magic sections: \(stats.magicSections), aliases: \(stats.aliases)")
            print("directories: \(stats.directories.map(\.description).joined(separator: ", "))")
            return 0
        case .conforms(let identifier, let parent):
            for unknown in [identifier, parent] where !types.isKnown(unknown) {
                printError("unknown content type \(unknown)")
                return 2
            }
            let conforms = types.conforms(identifier, to: parent)
            print(conforms ? "yes" : "no")
            return conforms ? 0 : 1
        }
    }

    static func printError(_ message: String) {
        Logger(level: .error).error(message)
    }
}
