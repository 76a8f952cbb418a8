/// The `magic` rules of the shared MIME database and the matcher over them.
///
/// The file format (shared-mime-info spec, "The magic files"): the header `MIME-Magic\0\n`,
/// then sections `[priority:type]\n`, each a list of lines
/// `[indent] ">" offset "=" value ["&" mask] ["~" word-size] ["+" range-length] "\n"`
/// where the value is a big-endian 16-bit length followed by that many raw bytes and the mask
/// (when present) has the same length. A line nested one level deeper than the line before it
/// is that line's child: a rule matches when its own bytes match and, if it has children, one of
/// them matches too; a section matches when any top-level rule does. Sections come highest
/// priority first, and the first section that matches gives the type.
struct MagicTable: Sendable {
    /// One matchlet, flattened: its children follow it directly, up to `subtreeEnd`.
    struct Rule: Sendable {
        var offset: Int
        /// How many start offsets to try, from `offset` on (at least 1).
        var rangeLength: Int
        var valueStart: Int
        var valueLength: Int
        /// Where the mask starts in `bytes`, or -1 for "all ones".
        var maskStart: Int
        /// One past the last rule nested under this one.
        var subtreeEnd: Int
    }

    struct Section: Sendable {
        var priority: Int
        var type: Int32
        /// The section's rules, pre-order; the top-level ones are those reached by
        /// skipping from one subtree end to the next.
        var rules: Range<Int>
    }

    private(set) var sections: [Section] = []
    private(set) var rules: [Rule] = []
    /// Values and masks of every rule, back to back.
    private(set) var bytes: [UInt8] = []
    /// The furthest byte any rule can look at, plus one.
    private(set) var extent = 0

    /// The type (index) of the first section that matches `data`, with its priority.
    func match(_ data: UnsafeRawBufferPointer) -> (type: Int32, priority: Int)? {
        for section in sections {
            var index = section.rules.lowerBound
            while index < section.rules.upperBound {
                if matches(index, data) { return (section.type, section.priority) }
                index = rules[index].subtreeEnd
            }
        }
        return nil
    }

    private func matches(_ index: Int, _ data: UnsafeRawBufferPointer) -> Bool {
        let rule = rules[index]
        guard compare(rule, data) else { return false }
        if rule.subtreeEnd == index + 1 { return true }
        var child = index + 1
        while child < rule.subtreeEnd {
            if matches(child, data) { return true }
            child = rules[child].subtreeEnd
        }
        return false
    }

    private func compare(_ rule: Rule, _ data: UnsafeRawBufferPointer) -> Bool {
        let length = rule.valueLength
        return bytes.withUnsafeBufferPointer { table in
            for start in rule.offset ..< rule.offset + rule.rangeLength {
                if start + length > data.count { return false }
                var equal = true
                if rule.maskStart < 0 {
                    for j in 0 ..< length where table[rule.valueStart + j] != data[start + j] {
                        equal = false
                        break
                    }
                } else {
                    for j in 0 ..< length {
                        let mask = table[rule.maskStart + j]
                        if table[rule.valueStart + j] & mask != data[start + j] & mask {
                            equal = false
                            break
                        }
                    }
                }
                if equal { return true }
            }
            return false
        }
    }
}

extension MagicTable {
    /// A parsed section before merging, with its own rules and bytes.
    struct ParsedSection {
        var priority: Int
        var typeName: String
        /// The type's number in the database, once the caller has looked it up.
        var type: Int32 = -1
        var rules: [Rule] = []
        var bytes: [UInt8] = []
        /// The section said `__NOMAGIC__`: rules for this type from lower-precedence
        /// directories are to be forgotten.
        var deletesLowerRules = false
    }

    /// Parses one `magic` file. Malformed lines are skipped as the spec asks (an unknown
    /// character where a newline is expected voids the line); a file without the header
    /// yields nothing.
    static func parse(_ file: [UInt8]) -> [ParsedSection] {
        let header: [UInt8] = Array("MIME-Magic".utf8) + [0, 0x0A]
        guard file.count >= header.count, Array(file[0 ..< header.count]) == header else { return [] }
        var sections: [ParsedSection] = []
        var position = header.count
        let end = file.count

        func readNumber() -> Int? {
            var value = 0
            var digits = 0
            while position < end, file[position] >= 0x30, file[position] <= 0x39 {
                value = value &* 10 &+ Int(file[position] - 0x30)
                position += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        func skipLine() {
            while position < end, file[position] != 0x0A { position += 1 }
            position += 1
        }

        // Indent of each rule in the current section, to build the nesting.
        var depths: [Int] = []
        while position < end {
            if file[position] == UInt8(ascii: "[") {
                finish(&sections, depths)
                depths = []
                position += 1
                guard let priority = readNumber(), position < end, file[position] == UInt8(ascii: ":") else {
                    skipLine(); continue
                }
                position += 1
                let nameStart = position
                while position < end, file[position] != UInt8(ascii: "]"), file[position] != 0x0A { position += 1 }
                guard position < end, file[position] == UInt8(ascii: "]") else { skipLine(); continue }
                let name = String(decoding: file[nameStart ..< position], as: UTF8.self)
                position += 1
                skipLine()
                sections.append(ParsedSection(priority: priority, typeName: name))
                continue
            }
            guard !sections.isEmpty else { skipLine(); continue }
            let indent = readNumber() ?? 0
            guard position < end, file[position] == UInt8(ascii: ">") else { skipLine(); continue }
            position += 1
            guard let offset = readNumber(), position + 2 < end, file[position] == UInt8(ascii: "=") else {
                skipLine(); continue
            }
            position += 1
            let length = Int(file[position]) << 8 | Int(file[position + 1])
            position += 2
            guard position + length <= end else { break }
            let value = file[position ..< position + length]
            position += length
            var mask: ArraySlice<UInt8>?
            var wordSize = 1
            var range = 1
            var valid = true
            lineLoop: while position < end {
                switch file[position] {
                case UInt8(ascii: "&"):
                    position += 1
                    guard position + length <= end else { valid = false; break lineLoop }
                    mask = file[position ..< position + length]
                    position += length
                case UInt8(ascii: "~"):
                    position += 1
                    wordSize = readNumber() ?? 1
                case UInt8(ascii: "+"):
                    position += 1
                    range = readNumber() ?? 1
                case 0x0A:
                    position += 1
                    break lineLoop
                default:
                    valid = false
                    skipLine()
                    break lineLoop
                }
            }
            guard valid else { continue }
            if indent == 0 && value.elementsEqual("__NOMAGIC__".utf8) {
                sections[sections.count - 1].deletesLowerRules = true
                continue
            }
            // A rule deeper than one level below its predecessor has no parent; skip it.
            if indent > (depths.last.map { $0 + 1 } ?? 0) { continue }
            // Values are stored in host order; `~n` marks big-endian words of n bytes.
            let swap = wordSize > 1 && length % wordSize == 0 && UInt16(1).littleEndian == 1 ? wordSize : 1
            let last = sections.count - 1
            let valueStart = sections[last].bytes.count
            appendWords(value, size: swap, to: &sections[last].bytes)
            var maskStart = -1
            if let mask {
                maskStart = sections[last].bytes.count
                appendWords(mask, size: swap, to: &sections[last].bytes)
            }
            sections[last].rules.append(Rule(offset: offset, rangeLength: max(range, 1), valueStart: valueStart,
                                             valueLength: length, maskStart: maskStart, subtreeEnd: 0))
            depths.append(indent)
        }
        finish(&sections, depths)
        return sections
    }

    /// Fills in each rule's subtree end from the indents.
    private static func finish(_ sections: inout [ParsedSection], _ depths: [Int]) {
        guard let last = sections.indices.last, sections[last].rules.count == depths.count else { return }
        for index in depths.indices {
            var end = index + 1
            while end < depths.count, depths[end] > depths[index] { end += 1 }
            sections[last].rules[index].subtreeEnd = end
        }
    }

    /// Appends `bytes`, reversing each word of `size` bytes (size 1: as they are).
    private static func appendWords(_ bytes: ArraySlice<UInt8>, size: Int, to table: inout [UInt8]) {
        guard size > 1 else { table += bytes; return }
        for start in stride(from: bytes.startIndex, to: bytes.endIndex, by: size) {
            for j in 0 ..< size { table.append(bytes[start + size - 1 - j]) }
        }
    }

    /// Merges parsed sections (each list from one directory, highest precedence first) into one
    /// table: sections sorted by priority, highest first, keeping file and directory order among
    /// equals; a type whose rules a higher directory deleted loses those of lower directories.
    init(directories: [[ParsedSection]]) {
        var deleted: Set<Int32> = []
        var merged: [(section: ParsedSection, order: Int)] = []
        for sectionsOfDirectory in directories {
            var deletedHere: Set<Int32> = []
            for section in sectionsOfDirectory {
                if deleted.contains(section.type) { continue }
                if section.deletesLowerRules { deletedHere.insert(section.type) }
                merged.append((section, merged.count))
            }
            deleted.formUnion(deletedHere)
        }
        merged.sort { $0.section.priority != $1.section.priority ? $0.section.priority > $1.section.priority : $0.order < $1.order }
        for (section, _) in merged where !section.rules.isEmpty {
            let ruleBase = rules.count
            let byteBase = bytes.count
            for var rule in section.rules {
                rule.valueStart += byteBase
                if rule.maskStart >= 0 { rule.maskStart += byteBase }
                rule.subtreeEnd += ruleBase
                rules.append(rule)
                extent = max(extent, rule.offset + rule.rangeLength - 1 + rule.valueLength)
            }
            bytes += section.bytes
            sections.append(Section(priority: section.priority, type: section.type,
                                    rules: ruleBase ..< rules.count))
        }
    }
}
