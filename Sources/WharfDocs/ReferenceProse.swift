import WharfServer

/// The command-line reference's prose in roff: `backquoted` words bold, as literal text is in
/// manual pages, the reference's placeholders (`FILE`, `MODE`) italic, and references to other
/// pages (`wharf-protocol(7)`) with the name bold.
struct ReferenceProse {
    var placeholders: Set<String>

    init(_ reference: CommandLineReference) {
        var names: Set<String> = []
        func add(_ kind: ValueKind) {
            if case .choice(let choices) = kind { names.formUnion(choices.compactMap(\.fileArgument)) }
        }
        for option in reference.options + reference.commands.flatMap(\.options) {
            if let value = option.value {
                names.insert(value.placeholder)
                add(value.kind)
            }
        }
        for operand in reference.commands.flatMap(\.operands) {
            names.insert(operand.placeholder)
            add(operand.kind)
        }
        placeholders = names
    }

    func roff(_ text: String) -> String {
        var result = ""
        var inLiteral = false
        var segment = ""
        for character in text {
            guard character == "`" else {
                segment.append(character)
                continue
            }
            result += inLiteral ? Roff.bold(segment) : prose(segment)
            segment = ""
            inLiteral.toggle()
        }
        return result + (inLiteral ? Roff.bold(segment) : prose(segment))
    }

    /// Words outside literals: placeholders italic, `name(N)` with the name bold.
    private func prose(_ text: String) -> String {
        var result = ""
        var word = ""
        var rest = text[...]
        func flush() {
            guard !word.isEmpty else { return }
            if placeholders.contains(word) {
                result += Roff.italic(word)
            } else if rest.count >= 3, rest.first == "(", rest.dropFirst().first?.isNumber == true,
                      rest.dropFirst(2).first == ")", word.first?.isLowercase == true {
                result += Roff.bold(word)
            } else {
                result += Roff.escape(word)
            }
            word = ""
        }
        while let character = rest.first {
            if character.isLetter || character.isNumber || character == "_" || (character == "-" && !word.isEmpty) {
                word.append(character)
                rest = rest.dropFirst()
            } else {
                flush()
                result += Roff.escape(String(character))
                rest = rest.dropFirst()
            }
        }
        flush()
        return result
    }
}
