import WharfServer

/// The commands as a tree of words (`wharf` → `types` → `identify`), which is how a shell
/// completes them: at each node the words below it, at a leaf its options and operands.
struct CommandTree {
    var words: [String]
    /// The command at this node, when words up to here make one.
    var command: Subcommand?
    var children: [CommandTree]

    init(_ reference: CommandLineReference) {
        self.init(words: [], commands: reference.commands)
    }

    private init(words: [String], commands: [Subcommand]) {
        self.words = words
        command = commands.first { $0.words == words }
        var children: [CommandTree] = []
        var seen: [String] = []
        for command in commands where command.words.count > words.count && Array(command.words.prefix(words.count)) == words {
            let next = command.words[words.count]
            guard !seen.contains(next) else { continue }
            seen.append(next)
            children.append(CommandTree(words: words + [next], commands: commands))
        }
        self.children = children
    }

    var word: String { words.last ?? "" }

    /// What a completion list says beside the word: the command's first sentence, or the words
    /// below a group.
    var summary: String {
        if let command { return Completion.describe(command.summary) }
        return children.map(\.word).joined(separator: ", ")
    }

    /// Every node, this one first.
    var all: [CommandTree] { [self] + children.flatMap(\.all) }
}
