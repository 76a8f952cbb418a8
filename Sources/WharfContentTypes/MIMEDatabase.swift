#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// What the freedesktop shared MIME database says, merged over the MIME directories
/// (`$XDG_DATA_HOME/mime` first, then each `$XDG_DATA_DIRS/mime`), read once and then immutable.
///
/// Only the plain-text and binary files that `update-mime-database` writes are read — `globs2`,
/// `magic`, `subclasses`, `aliases` — not `mime.cache`: they hold the same rules, are simpler to
/// parse correctly, and are small enough to parse in a couple of milliseconds.
///
/// MIME types are numbered: every type the rules mention gets an index, so the glob trie and the
/// magic table carry small integers and the registry can keep per-type answers in arrays.
final class MIMEDatabase: Sendable {
    /// Canonical MIME type names by index.
    let typeNames: [String]
    let typeIndex: [String: Int32]
    /// Alias → canonical name.
    let aliases: [String: String]
    /// Direct parents by type index, from `subclasses` (canonicalised), without the implicit
    /// ones (`text/*` → `text/plain`, everything but `inode/*` → `application/octet-stream`).
    let parents: [[Int32]]
    /// Glob patterns by type index, highest weight first, as written in `globs2`.
    let patterns: [[String]]
    let globs: GlobTable
    let magic: MagicTable
    /// The MIME directories read, highest precedence first.
    let directories: [String]

    init(directories: [String]) {
        self.directories = directories
        var names: [String] = []
        var index: [String: Int32] = [:]
        func intern(_ name: String) -> Int32 {
            if let existing = index[name] { return existing }
            let new = Int32(names.count)
            names.append(name)
            index[name] = new
            return new
        }

        // Aliases first, so everything else can be canonicalised as it is read.
        var aliases: [String: String] = [:]
        for directory in directories {
            Self.forEachLine(of: directory + "/aliases") { line in
                guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return }
                let alias = Self.lowercasedString(line[..<space])
                if aliases[alias] == nil { aliases[alias] = Self.lowercasedString(line[(space + 1)...]) }
            }
        }
        func canonical(_ name: String) -> String {
            let lower = asciiLowercased(name)
            return aliases[lower] ?? lower
        }
        for anchor in ["application/octet-stream", "text/plain", "inode/directory", "inode/symlink"] {
            _ = intern(anchor)
        }

        // Globs, highest precedence directory first; __NOGLOBS__ hides lower directories' rules.
        // A type listing the same pattern twice (as `*.c:cs` and `*.c`) keeps only the first,
        // as the cache GLib reads does: `main.c` is C, not also C++ through `*.C`.
        struct TypePattern: Hashable { var type: Int32; var pattern: String }
        var rules: [GlobRule] = []
        var seenPatterns: Set<TypePattern> = []
        var hidden: Set<String> = []
        for directory in directories {
            var hiddenHere: Set<String> = []
            Self.forEachLine(of: directory + "/globs2") { line in
                guard line.first != UInt8(ascii: "#") else { return }
                var fields = line.split(separator: UInt8(ascii: ":"), maxSplits: 4, omittingEmptySubsequences: false)
                guard fields.count >= 3, let weight = Self.number(fields[0]), !fields[2].isEmpty else { return }
                if fields.count == 5 { fields.removeLast() }  // further fields are for future use
                let type = canonical(String(decoding: fields[1], as: UTF8.self))
                if hidden.contains(type) { return }
                let pattern = String(decoding: fields[2], as: UTF8.self)
                if pattern == "__NOGLOBS__" { hiddenHere.insert(type); return }
                let caseSensitive = fields.count > 3 && fields[3].split(separator: UInt8(ascii: ",")).contains { $0.elementsEqual("cs".utf8) }
                let typeIndex = intern(type)
                guard seenPatterns.insert(TypePattern(type: typeIndex, pattern: pattern)).inserted else { return }
                rules.append(GlobRule(weight: weight, type: typeIndex, pattern: pattern, caseSensitive: caseSensitive))
            }
            hidden.formUnion(hiddenHere)
        }
        // Each globs2 lists rules by weight; across files keep precedence among equal weights.
        if !zip(rules, rules.dropFirst()).allSatisfy({ $0.weight >= $1.weight }) {
            rules = rules.enumerated().sorted {
                $0.element.weight != $1.element.weight ? $0.element.weight > $1.element.weight : $0.offset < $1.offset
            }.map(\.element)
        }

        var parents: [Int32: [Int32]] = [:]
        for directory in directories {
            Self.forEachLine(of: directory + "/subclasses") { line in
                guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return }
                let child = intern(canonical(String(decoding: line[..<space], as: UTF8.self)))
                let parent = intern(canonical(String(decoding: line[(space + 1)...], as: UTF8.self)))
                if child != parent, !(parents[child] ?? []).contains(parent) { parents[child, default: []].append(parent) }
            }
        }

        let parsedMagic = directories.map { MagicTable.parse(Self.contents(of: $0 + "/magic") ?? []) }
        for sections in parsedMagic {
            for section in sections { _ = intern(canonical(section.typeName)) }
        }
        let magic = MagicTable(directories: parsedMagic) { index[canonical($0)]! }

        var patterns = Array(repeating: [String](), count: names.count)
        for rule in rules where !patterns[Int(rule.type)].contains(rule.pattern) {
            patterns[Int(rule.type)].append(rule.pattern)
        }
        self.typeNames = names
        self.typeIndex = index
        self.aliases = aliases
        self.parents = names.indices.map { parents[Int32($0)] ?? [] }
        self.patterns = patterns
        self.globs = GlobTable(rules: rules)
        self.magic = magic
    }

    /// The canonical spelling of a MIME type: lowercased, parameters dropped, aliases resolved.
    func canonicalName(_ mimeType: String) -> String {
        var name = asciiLowercased(mimeType)
        if let semicolon = name.firstIndex(of: ";") {
            name = String(name[..<semicolon]).trimmingSpaces()
        }
        return aliases[name] ?? name
    }

    /// Whether `type` is `base` or inherits from it, with shared-mime-info's implicit rules
    /// (every `text/*` is `text/plain`; everything but `inode/*` is `application/octet-stream`)
    /// and `media/*` wildcards.
    func isSubclass(_ type: String, of base: String) -> Bool {
        let type = canonicalName(type)
        let base = canonicalName(base)
        if type == base { return true }
        if base.hasSuffix("/*"), type.hasPrefix(base.dropLast()) { return true }
        if base == "text/plain", type.hasPrefix("text/") { return true }
        if base == "application/octet-stream", !type.hasPrefix("inode/") { return true }
        guard let index = typeIndex[type] else { return false }
        var seen: Set<Int32> = [index]
        var pending = parents[Int(index)]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            let name = typeNames[Int(next)]
            if name == base { return true }
            if base == "text/plain", name.hasPrefix("text/") { return true }
            pending += parents[Int(next)]
        }
        return false
    }

    /// The human description from `<dir>/<media>/<subtype>.xml` (the first `<comment>` without a
    /// language), read on demand: descriptions are only needed by `describe`.
    func comment(for mimeType: String) -> String? {
        for directory in directories {
            guard let bytes = Self.contents(of: directory + "/" + mimeType + ".xml") else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let open = text.firstRange(of: "<comment>"),
                  let close = text[open.upperBound...].firstRange(of: "</comment>")
            else { continue }
            return String(text[open.upperBound ..< close.lowerBound])
                .replacingEntities()
        }
        return nil
    }

    // MARK: Reading files

    static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let status = try? FileStatus.of(descriptor: descriptor), status.kind == .regular else { return nil }
        var result = [UInt8](repeating: 0, count: Int(status.size))
        var filled = 0
        while filled < result.count {
            let count = result.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        result.removeSubrange(filled...)
        return result
    }

    /// Calls `body` with each non-empty line of a file, without the newline.
    static func forEachLine(of path: String, _ body: (ArraySlice<UInt8>) -> Void) {
        guard let bytes = contents(of: path) else { return }
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            if end > start { body(bytes[start ..< end]) }
            start = end + 1
        }
    }

    static func lowercasedString(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.lazy.map(lowercaseASCII), as: UTF8.self)
    }

    static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count < 10 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

extension String {
    /// Decodes the five predefined XML entities.
    func replacingEntities() -> String {
        guard contains("&") else { return self }
        var result = ""
        var rest = Substring(self)
        let entities = ["&lt;": "<", "&gt;": ">", "&quot;": "\"", "&apos;": "'", "&amp;": "&"]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            rest = rest[amp...]
            if let (entity, character) = entities.first(where: { rest.hasPrefix($0.key) }) {
                result += character
                rest = rest.dropFirst(entity.count)
            } else {
                result += "&"
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }
}
