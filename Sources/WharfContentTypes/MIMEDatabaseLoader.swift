/// Reads the files `update-mime-database` writes into the tables `MIMEDatabase` keeps, one
/// file at a time, highest-precedence directory first.
///
/// Loading is on the path of a client's first request, so it works on the files' bytes:
/// lines and fields are views into the file, and type names are numbered straight from those
/// bytes (`MIMENameTable`), so a String is made once per distinct name, not once per mention.
/// The state lives in this struct, not in locals captured by closures, so that the compiler
/// sees every access and the loops stay tight.
struct MIMEDatabaseLoader {
    /// Canonical MIME types, numbered in the order the files first mention them.
    private(set) var types = MIMENameTable()
    private(set) var aliasNames = MIMENameTable()
    /// `aliasTargets[n]` is the canonical name alias `n` stands for.
    private(set) var aliasTargets: [String] = []
    /// Glob rules, highest precedence first once `finishGlobs` has run.
    private(set) var rules: [GlobRule] = []
    /// Glob patterns by type number, in rule order.
    private(set) var patterns: [[String]] = []
    /// The case-sensitive ones among them (`*.C`, `core`), by type number: a handful.
    private(set) var caseSensitivePatterns: [Int32: [String]] = [:]
    /// Direct parents by type number.
    private(set) var parents: [[Int32]] = []
    private(set) var magic: [[MagicTable.ParsedSection]] = []
    /// Types whose globs a higher-precedence directory replaced (`__NOGLOBS__`).
    private var hiddenGlobs: Set<String> = []

    init(anchors: [String]) {
        for anchor in anchors { _ = types.intern(anchor) }
    }

    /// `aliases`: lines `alias canonical`. The first directory to name an alias wins.
    /// Read before anything else, so that everything after can be canonicalised as it is read.
    mutating func readAliases(_ file: UnsafeBufferPointer<UInt8>) {
        var lines = Lines(file)
        while let line = lines.next() {
            var fields = FieldReader(line)
            guard let alias = fields.next(until: UInt8(ascii: " ")), !fields.atEnd else { continue }
            let before = aliasNames.count
            _ = aliasNames.intern(alias)
            if aliasNames.count > before { aliasTargets.append(Self.lowercasedString(fields.rest)) }
        }
    }

    /// `globs2`: lines `weight:type:pattern[:flags[:…]]`, highest weight first.
    ///
    /// A type listing the same pattern twice (as `*.c:cs` and `*.c`) keeps only the first, as
    /// the cache GLib reads does: `main.c` is C, not also C++ through `*.C`. `__NOGLOBS__` hides
    /// the type's rules in lower-precedence directories.
    mutating func readGlobs(_ file: UnsafeBufferPointer<UInt8>) {
        var hiddenHere: Set<String> = []
        var lines = Lines(file)
        while let line = lines.next() {
            guard line[0] != UInt8(ascii: "#") else { continue }
            var fields = FieldReader(line)
            guard let weightField = fields.next(until: UInt8(ascii: ":")), let weight = Self.number(weightField),
                  let typeField = fields.next(until: UInt8(ascii: ":")),
                  let patternField = fields.next(until: UInt8(ascii: ":")), !patternField.isEmpty
            else { continue }
            // Fields after the flags are for future use.
            let flags = fields.next(until: UInt8(ascii: ":"))
            if !hiddenGlobs.isEmpty, hiddenGlobs.contains(canonicalString(typeField)) { continue }
            let pattern = String(decoding: patternField, as: UTF8.self)
            if pattern == "__NOGLOBS__" { hiddenHere.insert(canonicalString(typeField)); continue }
            let type = Int(canonicalNumber(typeField))
            while patterns.count <= type { patterns.append([]) }
            guard !patterns[type].contains(pattern) else { continue }
            patterns[type].append(pattern)
            let caseSensitive = flags.map(Self.listsCaseSensitive) ?? false
            if caseSensitive { caseSensitivePatterns[Int32(type), default: []].append(pattern) }
            rules.append(GlobRule(weight: weight, type: Int32(type), pattern: pattern, caseSensitive: caseSensitive))
        }
        hiddenGlobs.formUnion(hiddenHere)
    }

    /// Each `globs2` lists its rules by weight; across directories they are merged by weight,
    /// keeping precedence among equal weights.
    mutating func finishGlobs() {
        guard !zip(rules, rules.dropFirst()).allSatisfy({ $0.weight >= $1.weight }) else { return }
        rules = rules.enumerated().sorted {
            $0.element.weight != $1.element.weight ? $0.element.weight > $1.element.weight : $0.offset < $1.offset
        }.map(\.element)
        patterns = patterns.map { _ in [] }
        for rule in rules { patterns[Int(rule.type)].append(rule.pattern) }
    }

    /// `subclasses`: lines `child parent`.
    mutating func readSubclasses(_ file: UnsafeBufferPointer<UInt8>) {
        var lines = Lines(file)
        while let line = lines.next() {
            var fields = FieldReader(line)
            guard let childField = fields.next(until: UInt8(ascii: " ")), !fields.atEnd else { continue }
            let child = canonicalNumber(childField)
            let parent = canonicalNumber(fields.rest)
            while parents.count <= Int(child) { parents.append([]) }
            if child != parent, !parents[Int(child)].contains(parent) { parents[Int(child)].append(parent) }
        }
    }

    /// `magic`, the binary rules for sniffing; its sections name their types.
    mutating func readMagic(_ file: [UInt8]) {
        var sections = MagicTable.parse(file)
        for index in sections.indices {
            sections[index].type = sections[index].typeName.withUTF8 { canonicalNumber($0) }
        }
        magic.append(sections)
    }

    /// Every per-type table padded to the number of types.
    mutating func finish() {
        parents += Array(repeating: [], count: types.count - parents.count)
        patterns += Array(repeating: [], count: types.count - patterns.count)
    }

    // MARK: Names

    private mutating func canonicalNumber(_ name: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let alias = aliasNames.number(of: name) { return types.intern(aliasTargets[Int(alias)]) }
        return types.intern(name)
    }

    private func canonicalString(_ name: UnsafeBufferPointer<UInt8>) -> String {
        if let alias = aliasNames.number(of: name) { return aliasTargets[Int(alias)] }
        return Self.lowercasedString(name)
    }

    private static func lowercasedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        asciiLowercased(String(decoding: bytes, as: UTF8.self))
    }

    /// Whether a `globs2` flags field (comma-separated) says `cs`, case-sensitive.
    private static func listsCaseSensitive(_ flags: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = FieldReader(flags)
        while let flag = reader.next(until: UInt8(ascii: ",")) {
            if flag.count == 2 && flag[0] == UInt8(ascii: "c") && flag[1] == UInt8(ascii: "s") { return true }
        }
        return false
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count < 10 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}

/// The non-empty lines of a file, without their newlines.
struct Lines: IteratorProtocol {
    private let file: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ file: UnsafeBufferPointer<UInt8>) { self.file = file }

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        while position < file.count {
            let start = position
            while position < file.count && file[position] != 0x0A { position += 1 }
            let end = position
            position += 1
            if end > start { return UnsafeBufferPointer(rebasing: file[start ..< end]) }
        }
        return nil
    }
}

/// A line's fields, read one separator at a time without copying; like `split` with empty
/// fields kept (`a::b` has three fields, `a:` two).
struct FieldReader {
    private let line: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// The last field has been read.
    private(set) var atEnd = false

    init(_ line: UnsafeBufferPointer<UInt8>) { self.line = line }

    /// The bytes up to the next `separator` or the end of the line; nil once every field was read.
    mutating func next(until separator: UInt8) -> UnsafeBufferPointer<UInt8>? {
        guard !atEnd else { return nil }
        var end = position
        while end < line.count && line[end] != separator { end += 1 }
        let field = UnsafeBufferPointer(rebasing: line[position ..< end])
        if end == line.count { atEnd = true } else { position = end + 1 }
        return field
    }

    /// What has not been read yet.
    var rest: UnsafeBufferPointer<UInt8> {
        atEnd ? UnsafeBufferPointer(rebasing: line[line.count...]) : UnsafeBufferPointer(rebasing: line[position...])
    }
}
