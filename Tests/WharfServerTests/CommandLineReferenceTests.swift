import Testing
import WharfDocs
import WharfServer
import WharfSystem
import WharfTestSupport

/// The command-line reference (`CommandLineReference.wharf`, where `--help`, `wharf.1` and the
/// completions come from) and the parser agree: the parser accepts every option, value and
/// command the reference describes and refuses the values it does not allow; and every option
/// the parser knows is in the reference, found two ways: every flag-shaped string in the
/// parser's source (CommandLineParser*.swift) must be a documented option, and every
/// flag-shaped string anywhere in the server's sources that the parser does not call unknown
/// must be documented too.
@Suite struct CommandLineReferenceAgreement {
    let reference = CommandLineReference.wharf

    @Test func everyTopLevelOptionParsesWithEveryKindOfValueItAllows() throws {
        for option in reference.options {
            for name in option.names {
                for arguments in Samples.validArguments(name, option.value) {
                    #expect(throws: Never.self, "\(arguments)") { try CommandLineParser.parse(arguments) }
                }
            }
        }
    }

    @Test func valuesOutsideWhatTheReferenceAllowsAreRefused() {
        var placed: [(before: [String], option: CommandLineOption, after: [String])] = reference.options.map { ([], $0, []) }
        for command in reference.commands {
            let operands = command.operands.map { Samples.validValues($0.kind)[0] }
            placed += command.options.map { (command.words, $0, operands) }
        }
        for (before, option, after) in placed {
            guard let value = option.value else { continue }
            for bad in Samples.invalidValues(value.kind) {
                let arguments = before + [option.names.last!, bad] + after
                #expect(throws: UsageError.self, "\(arguments)") { try CommandLineParser.parse(arguments) }
            }
        }
    }

    /// A command's options are tried before and after its operands, as `--name VALUE` and as
    /// `--name=VALUE`, which every command reads as the top level does.
    @Test func everyCommandParsesWithItsOperandsAndEachOfItsOptions() throws {
        for command in reference.commands {
            let operands = command.operands.map { Samples.validValues($0.kind)[0] }
            var forms = [command.words + operands]
            for option in command.options {
                for name in option.names {
                    for arguments in Samples.validArguments(name, option.value) {
                        forms.append(command.words + arguments + operands)
                        forms.append(command.words + operands + arguments)
                    }
                }
            }
            for arguments in forms {
                let parsed = try CommandLineParser.parse(arguments)
                #expect(parsed != .serve(ServerOptions()), "\(arguments) parsed as the server")
            }
            if command.operands.contains(where: { !$0.isOptional }) {
                #expect(throws: UsageError.self, "\(command.words) without operands") { try CommandLineParser.parse(command.words) }
            }
        }
    }

    @Test func theParserSourceNamesNoOptionOrCommandTheReferenceLacks() throws {
        let sources = Sources.parser()
        #expect(!sources.isEmpty, "no CommandLineParser*.swift found")
        let (flags, words) = Sources.namesKnown(by: sources.joined(separator: "\n"))
        #expect(flags.contains("--framing"), "the scan found none of the parser's flags")
        #expect(flags.subtracting(reference.allOptionNames).isEmpty, "undocumented options: \(flags.subtracting(reference.allOptionNames).sorted())")
        let known = Samples.wordsOf(reference)
        #expect(words.subtracting(known).isEmpty, "undocumented commands or values: \(words.subtracting(known).sorted())")
    }

    @Test func noFlagTheParserAcceptsIsMissingFromTheReference() throws {
        var candidates: Set<String> = []
        for source in Sources.server() { candidates.formUnion(Sources.namesKnown(by: source).flags) }
        for flag in candidates.sorted() where !reference.allOptionNames.contains(flag) {
            do {
                _ = try CommandLineParser.parse([flag])
                Issue.record("the parser accepts \(flag), which the reference lacks")
            } catch {
                #expect(error.message.hasPrefix("unknown argument"), "the parser knows \(flag) (\(error.message)), the reference does not")
            }
        }
    }

    /// The check above, against a parser that knows an option the reference lacks.
    @Test func aParserWithAnUndocumentedOptionIsCaught() {
        let source = """
            switch argument {
            case "--stdio": break
            case "--listen-everywhere": options.everywhere = true
            case "frobnicate": return .frobnicate
            }
            """
        let (flags, words) = Sources.namesKnown(by: source)
        #expect(flags.subtracting(reference.allOptionNames) == ["--listen-everywhere"])
        #expect(words.subtracting(Samples.wordsOf(reference)) == ["frobnicate"])
    }

    @Test func helpIsRenderedFromTheReferenceAndFits100Columns() {
        let help = CommandLineParser.usage
        #expect(help == HelpText.render(reference))
        for line in help.split(separator: "\n") {
            #expect(line.count <= HelpText.width, "too wide: \(line)")
        }
        for name in reference.allOptionNames { #expect(help.contains(name), "--help lacks \(name)") }
        for command in reference.commands { #expect(help.contains(command.form), "--help lacks \(command.form)") }
    }

    @Test func theManualPageAndTheCompletionsNameEveryOptionAndCommand() {
        let page = ManualPage.render(reference, version: ServerInfo.version)
        let scripts = ["bash": BashCompletion.render(reference), "zsh": ZshCompletion.render(reference), "fish": FishCompletion.render(reference)]
        for name in reference.allOptionNames {
            let roff = name.map { $0 == "-" ? "\\-" : String($0) }.joined()
            #expect(page.contains(roff), "wharf.1 lacks \(name)")
            for (shell, script) in scripts {
                let spelled = shell == "fish" ? String(name.drop { $0 == "-" }) : name
                #expect(script.contains(spelled), "the \(shell) completion lacks \(name)")
            }
        }
        for word in Set(reference.commands.flatMap(\.words)) {
            #expect(page.contains(word), "wharf.1 lacks \(word)")
            for (shell, script) in scripts { #expect(script.contains(word), "the \(shell) completion lacks \(word)") }
        }
    }

    /// `--presenter fzf` and its siblings: on the server and on `pick` and `save`, in the
    /// manual page and in every shell's completion of `--presenter`.
    @Test func theTerminalFileManagersArePresentersEverywhereTheReferenceGoes() throws {
        let page = ManualPage.render(reference, version: ServerInfo.version)
        let scripts = [BashCompletion.render(reference), ZshCompletion.render(reference), FishCompletion.render(reference)]
        for tool in ["fzf", "lf", "nnn", "ranger", "vifm", "yazi"] {
            #expect(page.contains("\\fB\(tool)\\fR") || page.contains(tool + " "), "wharf.1 lacks \(tool)")
            for script in scripts { #expect(script.contains(" \(tool)") || script.contains("'\(tool)"), "a completion lacks \(tool)") }
            guard case .serve(let options) = try CommandLineParser.parse(["--presenter", tool]),
                  case .fileManager(let kind) = options.presenter else { Issue.record("--presenter \(tool)"); continue }
            #expect(kind.rawValue == tool)
            var pick = PickCommand()
            pick.presenter = options.presenter
            #expect(try CommandLineParser.parse(["pick", "--presenter", tool]) == .pick(pick))
            var save = SaveCommand()
            save.presenter = options.presenter
            save.file = "f"
            #expect(try CommandLineParser.parse(["save", "--presenter=\(tool)", "f"]) == .save(save))
        }
    }
}

/// Values to try, derived from what the reference says a value may be.
enum Samples {
    /// The words a parser may match in a `case` label: command words, and the words of every
    /// choice (`case "auto":` when reading `--presenter`).
    static func wordsOf(_ reference: CommandLineReference) -> Set<String> {
        var words = Set(reference.commands.flatMap(\.words))
        for option in reference.options + reference.commands.flatMap(\.options) {
            if let value = option.value, case .choice(let choices) = value.kind { words.formUnion(choices.map(\.word)) }
        }
        return words
    }

    static func validValues(_ kind: ValueKind) -> [String] {
        switch kind {
        case .choice(let choices): return choices.map { $0.fileArgument == nil ? $0.word : "\($0.word):/tmp/wharf-sample" }
        case .file: return ["/tmp/wharf-sample"]
        case .directory: return ["/tmp"]
        case .integer(let range): return [range.lowerBound, range.upperBound].map(String.init)
        case .contentType: return ["public.png"]
        case .text(let example): return [example]
        }
    }

    static func invalidValues(_ kind: ValueKind) -> [String] {
        switch kind {
        case .choice(let choices): return ["no-such-choice"] + choices.filter { $0.fileArgument != nil }.map { "\($0.word):" }
        case .integer(let range):
            var values = ["x", String(range.lowerBound - 1)]
            if range.upperBound < Int.max { values.append(String(range.upperBound + 1)) }
            return values
        case .file, .directory: return [""]
        case .contentType, .text: return []
        }
    }

    /// `--flag`; `--name VALUE` and `--name=VALUE` for each valid value; an optional value
    /// also alone.
    static func validArguments(_ name: String, _ value: OptionValue?) -> [[String]] {
        guard let value else { return [[name]] }
        var forms: [[String]] = value.isOptional ? [[name]] : []
        for sample in validValues(value.kind) {
            if !value.isOptional { forms.append([name, sample]) }
            if name.hasPrefix("--") { forms.append(["\(name)=\(sample)"]) }
        }
        return forms
    }

    static func operands(of words: [String], in reference: CommandLineReference) -> [String] {
        reference.commands.first { $0.words == words }?.operands.map { validValues($0.kind)[0] } ?? []
    }
}

/// The server's sources, read from the checkout this test was built from.
enum Sources {
    static let serverDirectory = FilePath(#filePath).directory.directory.directory.appending("Sources/WharfServer")

    /// Where the command line is read: the parser, the subcommands and the reference.
    static let commandLineDirectory = serverDirectory.appending("CommandLine")

    /// The parser: every CommandLineParser*.swift.
    static func parser() -> [String] {
        swiftFiles(in: commandLineDirectory).filter { $0.0.hasPrefix("CommandLineParser") }.map(\.1)
    }

    /// The Swift files directly in the server's directory and in its command line's (the
    /// reference's flags are known, so reading it adds nothing), and the executable's.
    static func server() -> [String] {
        var files = swiftFiles(in: serverDirectory).map(\.1)
        files += swiftFiles(in: commandLineDirectory).map(\.1)
        files += swiftFiles(in: serverDirectory.directory.appending("wharf")).map(\.1)
        return files
    }

    private static func swiftFiles(in directory: FilePath) -> [(String, String)] {
        directoryNames(directory).map { String(decoding: $0, as: UTF8.self) }.sorted()
            .filter { $0.hasSuffix(".swift") }
            .compactMap { name in readText(directory.appending(name)).map { (name, $0) } }
    }

    /// The flag-shaped string literals in a source (`"--framing"`, `"-h"`), and the word-shaped
    /// ones in `case` labels (`case "types":`).
    static func namesKnown(by source: String) -> (flags: Set<String>, words: Set<String>) {
        var flags: Set<String> = []
        var words: Set<String> = []
        for line in source.split(separator: "\n") {
            let literals = stringLiterals(String(line))
            flags.formUnion(literals.filter(isFlag))
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("case \"") {
                words.formUnion(literals.filter { $0.first?.isLetter == true && $0.allSatisfy { $0.isLowercase || $0 == "-" } })
            }
        }
        return (flags, words)
    }

    private static func isFlag(_ text: String) -> Bool {
        let body = text.hasPrefix("--") ? text.dropFirst(2) : text.hasPrefix("-") ? text.dropFirst() : ""
        return body.first?.isLetter == true && body.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
    }

    private static func stringLiterals(_ line: String) -> [String] {
        var literals: [String] = []
        var current: String?
        var escaped = false
        for character in line {
            if var text = current {
                if escaped {
                    escaped = false
                    text.append(character)
                    current = text
                } else if character == "\\" {
                    escaped = true
                    current = text
                } else if character == "\"" {
                    literals.append(text)
                    current = nil
                } else {
                    text.append(character)
                    current = text
                }
            } else if character == "\"" {
                current = ""
            }
        }
        return literals
    }
}
