import WharfServer

/// `wharf.1`, rendered from the command-line reference `--help` is rendered from, so the two
/// cannot disagree: name, synopsis, description, options (with their choices and defaults),
/// commands, exit status, environment, files, notes, see also.
public enum ManualPage {
    public static func render(_ reference: CommandLineReference, version: String) -> String {
        let prose = ReferenceProse(reference)
        var out: [String] = []
        let program = reference.program
        out.append(".TH \(program.uppercased()) 1 \"\" \"\(program) \(version)\" \"User Commands\"")
        out += Roff.layout

        out += [".SH NAME", "\(Roff.literal(program)) \\- \(Roff.escape(reference.tagline))"]

        out.append(".SH SYNOPSIS")
        let forms = reference.synopsis + reference.commands.map(\.form)
        for (index, form) in forms.enumerated() {
            if index > 0 { out.append(".br") }
            out.append("\(Roff.bold(program)) \(synopsis(form))")
        }

        out.append(".SH DESCRIPTION")
        for paragraph in reference.description { out += [".PP", prose.roff(paragraph)] }

        out.append(".SH OPTIONS")
        for option in reference.options { out += self.option(option, prose) }

        out.append(".SH COMMANDS")
        let topLevel = Set(reference.options.flatMap(\.names))
        for command in reference.commands {
            out += [".TP", "\(Roff.bold(program)) \(synopsis(command.form))", prose.roff(command.summary)]
            if let details = command.details { out += [".IP", prose.roff(details)] }
            // A command's own options; those shared with the top level are described above.
            let own = command.options.filter { $0.names.allSatisfy { !topLevel.contains($0) } }
            if !own.isEmpty {
                out.append(".RS")
                for option in own { out += self.option(option, prose) }
                out.append(".RE")
            }
        }

        out.append(".SH EXIT STATUS")
        out += entries(reference.exitStatuses, prose, boldTerms: true)
        out.append(".SH ENVIRONMENT")
        out += entries(reference.environment, prose, boldTerms: true)
        out.append(".SH FILES")
        out += entries(reference.files, prose, italicTerms: true)
        for note in reference.notes {
            out += [".SH \(Roff.escape(note.term.uppercased()))", prose.roff(note.text)]
        }

        out.append(".SH SEE ALSO")
        out.append(reference.seeAlso.map { page in
            guard let open = page.firstIndex(of: "(") else { return Roff.bold(page) }
            return Roff.bold(String(page[..<open])) + Roff.escape(String(page[open...]))
        }.joined(separator: ",\n"))
        return out.joined(separator: "\n") + "\n"
    }

    private static func option(_ option: CommandLineOption, _ prose: ReferenceProse) -> [String] {
        var out = [".TP", synopsis(option.term), prose.roff(option.summary)]
        if let value = option.value, case .choice(let choices) = value.kind {
            if choices.allSatisfy({ $0.summary == nil }) {
                out.append("\(Roff.italic(value.placeholder)) is one of " + choices.map { Roff.bold($0.spelled) }.joined(separator: ", ") + ".")
            } else {
                out.append(".RS")
                for choice in choices {
                    out += [".TP", synopsis(choice.spelled), prose.roff(choice.summary ?? "")]
                }
                out.append(".RE")
            }
        }
        if let defaultValue = option.value?.defaultValue {
            out += [".IP", "Default: \(Roff.bold(defaultValue))."]
        }
        if let details = option.details { out += [".IP", prose.roff(details)] }
        return out
    }

    private static func entries(_ entries: [Entry], _ prose: ReferenceProse, boldTerms: Bool = false, italicTerms: Bool = false) -> [String] {
        entries.flatMap { entry in
            let term = boldTerms ? Roff.bold(entry.term) : italicTerms ? Roff.italic(entry.term) : Roff.escape(entry.term)
            return [".TP", term, prose.roff(entry.text)]
        }
    }

    /// A form (`types identify [--no-sniff] FILE...`, `script:FILE`) in the manual's
    /// convention: what is typed as is bold, placeholders italic, brackets and ellipses plain.
    static func synopsis(_ form: String) -> String {
        form.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            var core = token[...]
            var lead = ""
            var trail = ""
            while let first = core.first, "[(".contains(first) { lead.append(first); core = core.dropFirst() }
            while let last = core.last, "]).,".contains(last) { trail = String(last) + trail; core = core.dropLast() }
            return lead + styled(String(core)) + trail
        }.joined(separator: " ")
    }

    private static func styled(_ word: String) -> String {
        if word.isEmpty || word == "|" { return word }
        if let colon = word.firstIndex(of: ":"), colon != word.startIndex {
            // script:FILE
            let head = String(word[...colon])
            let tail = String(word[word.index(after: colon)...])
            return Roff.bold(head) + styled(tail)
        }
        let isPlaceholder = word.allSatisfy { $0.isUppercase || $0 == "_" } && !word.isEmpty
        return isPlaceholder ? Roff.italic(word) : Roff.bold(word)
    }
}
