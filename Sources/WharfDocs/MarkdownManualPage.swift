/// A Markdown document as a manual page in roff (man(7) macros), for `wharf-protocol.7` from
/// protocol/README.md. It knows the Markdown that document uses, no more: headings, paragraphs,
/// fenced code, bulleted and numbered lists (nested by indentation, items continued on indented
/// lines), tables, and inline code, bold, emphasis, links and backslash escapes.
///
/// Tables become tagged paragraphs: the first cell is the tag, the middle cells are labelled
/// with their column's heading, the last cell is the text (labelled too past three columns). A table of five columns cannot be
/// read at 80 columns any other way, and this needs no tbl preprocessor.
public struct MarkdownManualPage {
    public var name: String
    public var section: String
    /// The NAME line's text after the dash.
    public var tagline: String
    /// `.TH`'s source field, e.g. `wharf 0.1.0`.
    public var source: String
    /// `.TH`'s manual field, e.g. `Wharf`.
    public var manual: String

    public init(name: String, section: String, tagline: String, source: String, manual: String) {
        self.name = name
        self.section = section
        self.tagline = tagline
        self.source = source
        self.manual = manual
    }

    public func render(_ markdown: String) -> String {
        var out = [
            ".TH \(Roff.literal(name.uppercased())) \(section) \"\" \"\(source)\" \"\(manual)\"",
        ] + Roff.layout + [
            ".SH NAME",
            "\(Roff.literal(name)) \\- \(Roff.escape(tagline))",
        ]
        var sawTitle = false
        var sawSection = false
        for block in Self.blocks(markdown) {
            switch block {
            case .heading(1, _) where !sawTitle:
                sawTitle = true
            case .heading(let level, let text):
                if level <= 2 {
                    sawSection = true
                    out.append(".SH " + Self.headingText(text.contains("`") ? text : text.uppercased()))
                } else {
                    out.append(".SS " + Self.headingText(text))
                }
            case .paragraph(let text):
                if !sawSection {
                    sawSection = true
                    out.append(".SH DESCRIPTION")
                }
                out += [".PP", Self.inline(text)]
            case .code(let lines):
                out += [".PP", ".RS 2", ".nf"] + lines.map { Roff.literal($0) } + [".fi", ".RE"]
            case .table(let header, let rows):
                out += Self.table(header: header, rows: rows)
            case .list(let items):
                out += Self.list(items)
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    // MARK: Blocks

    enum Block {
        case heading(Int, String)
        case paragraph(String)
        case code([String])
        case table(header: [String], rows: [[String]])
        case list([ListItem])
    }

    struct ListItem {
        var indent: Int
        /// `1.` for a numbered item, nil for a bullet.
        var number: String?
        var text: String
    }

    static func blocks(_ markdown: String) -> [Block] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [Block] = []
        var index = 0
        func startsBlock(_ line: String) -> Bool {
            line.hasPrefix("```") || line.hasPrefix("#") || line.hasPrefix("|") || listItem(line) != nil
        }
        while index < lines.count {
            let line = lines[index]
            if line.trimmingSpaces.isEmpty {
                index += 1
            } else if line.hasPrefix("```") {
                var code: [String] = []
                index += 1
                while index < lines.count, !lines[index].hasPrefix("```") {
                    code.append(lines[index])
                    index += 1
                }
                index += 1
                blocks.append(.code(code))
            } else if line.hasPrefix("#") {
                let level = line.prefix { $0 == "#" }.count
                blocks.append(.heading(level, String(line.dropFirst(level)).trimmingSpaces))
                index += 1
            } else if line.hasPrefix("|") {
                var rows: [[String]] = []
                while index < lines.count, lines[index].hasPrefix("|") {
                    let cells = cells(lines[index])
                    if !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { rows.append(cells) }
                    index += 1
                }
                blocks.append(.table(header: rows.first ?? [], rows: Array(rows.dropFirst())))
            } else if listItem(line) != nil {
                var items: [ListItem] = []
                while index < lines.count, !lines[index].trimmingSpaces.isEmpty {
                    if let item = listItem(lines[index]) {
                        items.append(item)
                    } else if lines[index].hasPrefix(" "), !items.isEmpty {
                        items[items.count - 1].text += "\n" + lines[index].trimmingSpaces
                    } else {
                        break
                    }
                    index += 1
                }
                blocks.append(.list(items))
            } else {
                var text = [line]
                index += 1
                while index < lines.count, !lines[index].trimmingSpaces.isEmpty, !startsBlock(lines[index]) {
                    text.append(lines[index])
                    index += 1
                }
                blocks.append(.paragraph(text.joined(separator: "\n")))
            }
        }
        return blocks
    }

    /// `- text`, `  - text`, `1. text`.
    static func listItem(_ line: String) -> ListItem? {
        let indent = line.prefix { $0 == " " }.count
        let rest = line.dropFirst(indent)
        if rest.hasPrefix("- ") || rest.hasPrefix("* ") {
            return ListItem(indent: indent, number: nil, text: String(rest.dropFirst(2)))
        }
        let digits = rest.prefix { $0.isNumber }
        if !digits.isEmpty, rest.dropFirst(digits.count).hasPrefix(". ") {
            return ListItem(indent: indent, number: digits + ".", text: String(rest.dropFirst(digits.count + 2)))
        }
        return nil
    }

    /// A table row's cells: split at `|` unless escaped as `\|`, trimmed.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in line.trimmingSpaces.dropFirst() {
            if escaped {
                // `\|` is a pipe inside a cell; other escapes are the inline parser's.
                if character != "|" { cell.append("\\") }
                cell.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingSpaces)
                cell = ""
            } else {
                cell.append(character)
            }
        }
        if !cell.trimmingSpaces.isEmpty { cells.append(cell.trimmingSpaces) }
        return cells
    }

    // MARK: Rendering blocks

    static func headingText(_ text: String) -> String {
        inline(text).replacingAll("\"", with: "\\(dq")
    }

    static func table(header: [String], rows: [[String]]) -> [String] {
        var out: [String] = []
        for row in rows {
            guard let tag = row.first else { continue }
            out += [".TP", inline(tag)]
            // The last column is the text; wider tables label it too, as it is one of many.
            let labelled = header.count > 3 ? row.dropFirst() : row.dropFirst().dropLast()
            for (offset, cell) in labelled.enumerated() where !cell.isEmpty {
                let label = header.indices.contains(offset + 1) ? header[offset + 1] : ""
                out += ["\(inline(label)): \(inline(cell))", ".br"]
            }
            if header.count <= 3, row.count > 1, let last = row.last, !last.isEmpty {
                out.append(inline(last))
            } else if out.last == ".br" {
                out.removeLast()
            }
        }
        return out
    }

    /// Items as indented paragraphs; a deeper indentation opens a nested list (`.RS`), a
    /// shallower one closes it.
    static func list(_ items: [ListItem]) -> [String] {
        var out: [String] = []
        var depths: [Int] = []
        for item in items {
            if let top = depths.last, item.indent > top {
                out.append(".RS")
                depths.append(item.indent)
            }
            while let top = depths.last, item.indent < top, depths.count > 1 {
                out.append(".RE")
                depths.removeLast()
            }
            if depths.isEmpty { depths.append(item.indent) }
            if let number = item.number {
                out += [".IP \(number) 4"]
            } else {
                out += [".IP \\(bu 2"]
            }
            out.append(inline(item.text))
        }
        out += Array(repeating: ".RE", count: max(0, depths.count - 1))
        return out
    }

    // MARK: Inline markup

    static func inline(_ text: String) -> String {
        let characters = Array(text)
        var out = ""
        var plain = ""
        var index = 0
        var bold = false
        func flush() {
            out += Roff.escape(plain)
            plain = ""
        }
        func find(_ target: Character, from start: Int) -> Int? {
            var position = start
            while position < characters.count {
                if characters[position] == target { return position }
                position += 1
            }
            return nil
        }
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "\\", let next, next.isPunctuation || next.isSymbol {
                plain.append(next)
                index += 2
            } else if character == "`", let close = find("`", from: index + 1) {
                flush()
                out += Roff.bold(String(characters[(index + 1)..<close]))
                index = close + 1
            } else if character == "*", next == "*" {
                flush()
                out += bold ? "\\fR" : "\\fB"
                bold.toggle()
                index += 2
            } else if character == "*", let next, next.isLetter,
                      let close = find("*", from: index + 1), characters[close - 1].isLetter {
                flush()
                out += Roff.italic(String(characters[(index + 1)..<close]))
                index = close + 1
            } else if character == "[", let middle = find("]", from: index + 1),
                      middle + 1 < characters.count, characters[middle + 1] == "(",
                      let close = find(")", from: middle + 2) {
                flush()
                let label = String(characters[(index + 1)..<middle])
                let target = String(characters[(middle + 2)..<close])
                out += inline(label)
                // Another page's anchors and relative files mean nothing in a manual page; a
                // web address is kept.
                if target.hasPrefix("http://") || target.hasPrefix("https://") {
                    out += " <\(Roff.escape(target))>"
                }
                index = close + 1
            } else {
                plain.append(character)
                index += 1
            }
        }
        flush()
        return out
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var view = self[...]
        while view.first == " " { view = view.dropFirst() }
        while view.last == " " { view = view.dropLast() }
        return String(view)
    }
}
