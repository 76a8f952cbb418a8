import Glibc
import WharfSystem

/// What the freedesktop shared MIME database says, merged over the MIME directories
/// (`$XDG_DATA_HOME/mime` first, then each `$XDG_DATA_DIRS/mime`), read once and then immutable.
///
/// Only the plain-text and binary files that `update-mime-database` writes are read — `globs2`,
/// `magic`, `subclasses`, `aliases` — not `mime.cache`: they hold the same rules and are simpler
/// to parse correctly. `MIMEDatabaseLoader` reads them (quickly: loading is on the path of a
/// client's first request).
///
/// MIME types are numbered: every type the rules mention gets an index, so the glob trie and the
/// magic table carry small integers and the registry can keep per-type answers in arrays.
final class MIMEDatabase: Sendable {
    /// Canonical MIME types, numbered.
    let types: MIMENameTable
    /// Canonical MIME type names by index (`types.names`, kept at hand).
    let typeNames: [String]
    /// Aliases, numbered; `aliasTargets[n]` is the canonical name alias `n` stands for.
    let aliasNames: MIMENameTable
    let aliasTargets: [String]
    /// Direct parents by type index, from `subclasses` (canonicalised), without the implicit
    /// ones (`text/*` → `text/plain`, everything but `inode/*` → `application/octet-stream`).
    let parents: [[Int32]]
    /// Glob patterns by type index, highest weight first, as written in `globs2`.
    let patterns: [[String]]
    /// The case-sensitive patterns among `patterns` (`*.C` is C++ source, `*.c` C), by type index.
    let caseSensitivePatterns: [Int32: [String]]
    let globs: GlobTable
    let magic: MagicTable
    /// The MIME directories read, highest precedence first.
    let directories: [FilePath]

    init(directories: [FilePath]) {
        self.directories = directories
        var loader = MIMEDatabaseLoader(anchors: ["application/octet-stream", "text/plain", "inode/directory", "inode/symlink"])
        func read(_ name: String, with body: (inout MIMEDatabaseLoader, UnsafeBufferPointer<UInt8>) -> Void) {
            for directory in directories {
                guard let bytes = Self.contents(of: directory.appending(name)) else { continue }
                bytes.withUnsafeBufferPointer { body(&loader, $0) }
            }
        }
        read("aliases") { $0.readAliases($1) }
        read("globs2") { $0.readGlobs($1) }
        loader.finishGlobs()
        read("subclasses") { $0.readSubclasses($1) }
        for directory in directories { loader.readMagic(Self.contents(of: directory.appending("magic")) ?? []) }
        loader.finish()

        self.types = loader.types
        self.typeNames = loader.types.names
        self.aliasNames = loader.aliasNames
        self.aliasTargets = loader.aliasTargets
        self.parents = loader.parents
        self.patterns = loader.patterns
        self.caseSensitivePatterns = loader.caseSensitivePatterns
        self.globs = GlobTable(rules: loader.rules)
        self.magic = MagicTable(directories: loader.magic)
    }

    /// The canonical spelling of a MIME type: lowercased, parameters dropped, aliases resolved.
    func canonicalName(_ mimeType: String) -> String {
        var name = asciiLowercased(mimeType)
        // Found by byte: `firstIndex(of: ";")` walks Characters, about 4,000 instructions for
        // a type's name, and every file a dialog identifies asks.
        if let semicolon = name.utf8.firstIndex(of: UInt8(ascii: ";")) {
            name = String(name[..<semicolon]).trimmingSpaces()
        }
        guard let alias = aliasNames.number(of: name) else { return name }
        return aliasTargets[Int(alias)]
    }

    /// The index of a canonical MIME type the database knows.
    func typeIndex(of canonical: String) -> Int32? {
        types.number(of: canonical)
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
        guard let index = types.number(of: type) else { return false }
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
            guard let bytes = Self.contents(of: directory.appending(mimeType + ".xml")) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let open = text.firstRange(ofASCII: "<comment>"),
                  let close = text[open.upperBound...].firstRange(ofASCII: "</comment>")
            else { continue }
            return String(text[open.upperBound ..< close.lowerBound])
                .replacingEntities()
        }
        return nil
    }

    // MARK: Reading files

    /// A regular file's bytes, or nil when it is missing, unreadable or not a regular file.
    static func contents(of path: FilePath) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY),
              let status = try? file.status(), status.kind == .regular
        else { return nil }
        var result = [UInt8](repeating: 0, count: Int(status.size))
        let filled = result.withUnsafeMutableBytes { (try? file.read(filling: $0)) ?? 0 }
        result.removeSubrange(filled...)
        return result
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
