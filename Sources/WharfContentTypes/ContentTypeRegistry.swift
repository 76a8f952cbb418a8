import Glibc
import Synchronization
import WharfSystem

/// The system's content types: Apple's system-declared types built in, and the freedesktop
/// shared MIME database as the oracle for everything they do not cover.
///
/// One registry is shared by every client (each client sees it through its own
/// `ContentTypeScope`, which adds the client's declarations). The MIME database is read lazily,
/// on the first question that needs it, exactly once even when many threads ask at the same
/// time; after that every answer comes from immutable tables, plus a small cache of the
/// dynamic types met so far.
public final class ContentTypeRegistry: Sendable {
    /// The registry over the real XDG directories (`$XDG_DATA_HOME/mime`, then each
    /// `$XDG_DATA_DIRS/mime`, defaulting to `~/.local/share` and `/usr/local/share:/usr/share`).
    public static let system = ContentTypeRegistry(mimeDirectories: defaultMIMEDirectories())

    /// The MIME directories to read, highest precedence first.
    public let mimeDirectories: [FilePath]
    /// Taken only until the tables are loaded, so that they are loaded once.
    private let loading = Locked<Tables?>(nil)
    /// The tables once loaded, read without a lock: every content-type question of every client
    /// asks for them, and a lock they all take is one they queue for. Set once, under `loading`,
    /// which keeps the strong reference for the registry's life.
    private let loaded = Atomic<Unmanaged<Tables>?>(nil)
    /// Dialog filters for clients that declared no types of their own.
    let filterCache = FilterCache()

    /// A registry over the given MIME directories (each one holds `globs2`, `magic`, … as
    /// `update-mime-database` writes them), highest precedence first. Tests point this at a
    /// database they generate; missing directories and files are simply empty.
    public init(mimeDirectories: [FilePath]) {
        self.mimeDirectories = mimeDirectories
    }

    /// The MIME directories the XDG Base Directory specification names: `$XDG_DATA_HOME/mime`
    /// (default `~/.local/share/mime`), then `mime` in each absolute entry of `$XDG_DATA_DIRS`
    /// (default `/usr/local/share:/usr/share`). `environment` reads a variable (the process
    /// environment unless a test passes its own).
    public static func defaultMIMEDirectories(
        environment: (String) -> [UInt8]? = ProcessControl.environment
    ) -> [FilePath] {
        func variable(_ name: String) -> [UInt8]? {
            guard let value = environment(name), !value.isEmpty else { return nil }
            return value
        }
        let home = variable("XDG_DATA_HOME").flatMap { FilePath(bytes: $0) } ?? FilePath.home().appending(".local/share")
        let system = (variable("XDG_DATA_DIRS") ?? Array("/usr/local/share:/usr/share".utf8))
            .split(separator: UInt8(ascii: ":")).compactMap { FilePath(bytes: $0) }.filter(\.isAbsolute)
        var seen: Set<FilePath> = []
        return ([home] + system).map { $0.appending("mime") }.filter { seen.insert($0).inserted }
    }

    /// Loads the MIME database now if it was not loaded yet, and says how long loading took.
    /// The server can call this at start-up (or for `wharf types stats`).
    @discardableResult
    public func load() -> LoadStatistics { tables.statistics }

    /// The loaded tables; the first call reads the database.
    var tables: Tables {
        if let tables = loaded.load(ordering: .acquiring) { return tables.takeUnretainedValue() }
        return loading.withValue { tables in
            if let tables { return tables }
            let made = Tables(directories: mimeDirectories)
            tables = made
            loaded.store(Unmanaged.passUnretained(made), ordering: .releasing)
            return made
        }
    }
}

/// How loading the MIME database went.
public struct LoadStatistics: Sendable, Equatable {
    /// Wall-clock time spent reading and indexing the database, in seconds.
    public var seconds: Double
    /// MIME types known (named by a glob, magic, alias or subclass rule).
    public var mimeTypes: Int
    public var globRules: Int
    public var magicSections: Int
    public var aliases: Int
    /// The directories read, highest precedence first.
    public var directories: [FilePath]
}

/// Everything the registry knows once loaded. Immutable except the dynamic-type cache.
final class Tables: Sendable {
    let database: MIMEDatabase
    let systemTypes: [String: TypeRecord]
    /// Lowercased extension → the first system type claiming it.
    let systemByExtension: [String: TypeRecord]
    /// Lowercased MIME type (as declared, and canonicalised by the database) → first claimant.
    let systemByMIME: [String: TypeRecord]
    /// For each MIME type of the database (by index), the system type it maps to, if any;
    /// the others have dynamic identifiers, made when asked for (`identifier(forType:)`).
    private let systemKeyForType: [String?]
    let statistics: LoadStatistics
    private let dynamicRecords = Locked<[String: TypeRecord]>([:])

    init(directories: [FilePath]) {
        let start = monotonicNanoseconds()
        let database = MIMEDatabase(directories: directories)

        var records: [String: TypeRecord] = [:]
        var byExtension: [String: TypeRecord] = [:]
        var byMIME: [String: TypeRecord] = [:]
        // Parents first, whatever the table's order, so each record sees its ancestors.
        let declarationsByKey = Dictionary(systemTypeDeclarations.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        func build(_ key: String) -> TypeRecord? {
            if let existing = records[key] { return existing }
            guard let declaration = declarationsByKey[key] else { return nil }
            for parent in declaration.conformsTo { _ = build(parent) }
            let record = TypeRecord(
                identifier: declaration.identifier, description: declaration.description,
                conformsTo: declaration.conformsTo, filenameExtensions: declaration.filenameExtensions,
                mimeTypes: declaration.mimeTypes, origin: .system, parentRecord: { records[$0] })
            records[key] = record
            return record
        }
        for declaration in systemTypeDeclarations {
            guard let record = build(declaration.identifier) else { continue }
            for ext in declaration.filenameExtensions where byExtension[ext] == nil { byExtension[ext] = record }
            for mime in declaration.mimeTypes {
                let lower = asciiLowercased(mime)
                if byMIME[lower] == nil { byMIME[lower] = record }
                if !lower.contains(";") {
                    let canonical = database.canonicalName(lower)
                    if byMIME[canonical] == nil { byMIME[canonical] = record }
                }
            }
        }
        self.database = database
        self.systemTypes = records
        self.systemByExtension = byExtension
        self.systemByMIME = byMIME
        var systemKeyForType = [String?](repeating: nil, count: database.typeNames.count)
        for (mime, record) in byMIME {
            if let index = database.typeIndex(of: mime), mime == database.typeNames[Int(index)] {
                systemKeyForType[Int(index)] = record.key
            }
        }
        self.systemKeyForType = systemKeyForType
        statistics = LoadStatistics(
            seconds: Double(monotonicNanoseconds() - start) / 1e9,
            mimeTypes: database.typeNames.count, globRules: database.patterns.reduce(0) { $0 + $1.count },
            magicSections: database.magic.sections.count, aliases: database.aliasNames.count,
            directories: directories)
    }

    /// The identifier the database's MIME type `index` maps to, ignoring client declarations.
    func identifier(forType index: Int32) -> String {
        systemKeyForType[Int(index)] ?? DynamicIdentifier(tag: .mimeType(database.typeNames[Int(index)])).identifier
    }

    /// The identifier a (canonical) MIME type maps to, ignoring client declarations.
    func systemIdentifier(forMIME canonical: String) -> String {
        if let record = systemByMIME[canonical] { return record.key }
        if let index = database.typeIndex(of: canonical) { return identifier(forType: index) }
        return DynamicIdentifier(tag: .mimeType(canonical)).identifier
    }

    /// A system or dynamic type by key; `resolve` looks up the keys of other types (which may
    /// be a client's declared types when a dynamic type was asked to conform to one).
    func record(forKey key: String, resolve: (String) -> TypeRecord?) -> TypeRecord? {
        record(forKey: key, resolve: resolve, depth: 0)
    }

    /// A dynamic type's record is made once and (when it depends on system knowledge alone)
    /// remembered; its parents are looked up here too, so each ancestor is made once, not once
    /// for every descendant that asks (the MIME database's chains, `text/x-c++src` →
    /// `text/x-csrc` → `text/plain`): a first dialog filter walks them all.
    private func record(forKey key: String, resolve: (String) -> TypeRecord?, depth: Int) -> TypeRecord? {
        if let record = systemTypes[key] { return record }
        guard key.hasPrefix(DynamicIdentifier.prefix) else { return nil }
        if let cached = dynamicRecords.withValue({ $0[key] }) { return cached }
        guard let dynamic = DynamicIdentifier(key),
              let record = makeDynamicRecord(dynamic, resolve: resolve, depth: depth) else { return nil }
        // Records that conform to a client's declared type are that client's business; cache
        // only those that depend on system knowledge alone.
        if dynamic.conformsTo == nil || systemTypes[dynamic.conformsTo!] != nil {
            dynamicRecords.withValue { $0[key] = record }
        }
        return record
    }

    private func makeDynamicRecord(_ dynamic: DynamicIdentifier, resolve: (String) -> TypeRecord?, depth: Int) -> TypeRecord? {
        guard depth < 32 else { return nil }
        // A client's declared types are never `dyn.…` (DeclaredTypes refuses them).
        func lookup(_ key: String) -> TypeRecord? {
            key.hasPrefix(DynamicIdentifier.prefix) ? record(forKey: key, resolve: resolve, depth: depth + 1)
                : systemTypes[key] ?? resolve(key)
        }
        var parents: [String] = []
        var extensions: [String] = []
        var mimeTypes: [String] = []
        var description: String
        switch dynamic.tag {
        case .filenameExtension(let ext):
            extensions = [ext]
            description = "\(ext) file"
            if let target = dynamic.conformsTo {
                guard lookup(target) != nil else { return nil }
                parents = [target]
            } else {
                parents = ["public.data"]
            }
        case .mimeType(let mime):
            guard isValidMIMEType(mime) else { return nil }
            mimeTypes = [mime]
            // The database's own wording is read only when someone asks (`describe`).
            description = ""
            if let index = database.typeIndex(of: mime) {
                for pattern in database.patterns[Int(index)] {
                    if let ext = simpleExtension(of: pattern), !extensions.contains(ext) { extensions.append(ext) }
                }
            }
            parents = mimeParents(of: mime)
            if let target = dynamic.conformsTo {
                guard lookup(target) != nil else { return nil }
                if !parents.contains(target) { parents.append(target) }
            }
            let isInode = mime.hasPrefix("inode/")
            let base = isInode ? "public.item" : "public.data"
            if !parents.contains(where: { lookup($0)?.conforms(to: base) ?? false }) {
                parents.append(base)
            }
        }
        return TypeRecord(identifier: dynamic.identifier, description: description, conformsTo: parents,
                          filenameExtensions: extensions, mimeTypes: mimeTypes, origin: .dynamic,
                          parentRecord: lookup)
    }

    /// The identifiers a MIME type's parents map to: its `subclasses` entries, `text/plain` for
    /// every other `text/*` (shared-mime-info's implicit rule), and the abstract type of its media
    /// type (`image/*` is `public.image`, …), so that a type the system does not declare still
    /// conforms to what a `image/*`-style dialog filter lets through.
    func mimeParents(of mime: String) -> [String] {
        var parents: [String] = []
        func add(_ key: String) { if !parents.contains(key) { parents.append(key) } }
        if let index = database.typeIndex(of: mime) {
            for parent in database.parents[Int(index)] {
                add(identifier(forType: parent))
            }
        }
        if mime.hasPrefix("text/"), mime != "text/plain" { add("public.plain-text") }
        if let abstract = abstractType(forMediaType: mime) { add(abstract) }
        return parents
    }
}

/// The abstract system type a top-level media type stands for, if any.
func abstractType(forMediaType mime: String) -> String? {
    if mime.hasPrefix("image/") { return "public.image" }
    if mime.hasPrefix("audio/") { return "public.audio" }
    if mime.hasPrefix("video/") { return "public.movie" }
    if mime.hasPrefix("font/") { return "public.font" }
    return nil
}

/// `*.png` → `png`; nil for patterns that are not a plain extension.
func simpleExtension(of pattern: String) -> String? {
    guard pattern.hasPrefix("*."), pattern.count > 2 else { return nil }
    let ext = pattern.dropFirst(2)
    guard !ext.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) else { return nil }
    return asciiLowercased(String(ext))
}

/// `type/subtype`, both non-empty, no spaces or controls.
/// Checked by bytes, not by `Character`s (grapheme breaking is costly): the first dialog filter
/// checks every type of the database.
func isValidMIMEType(_ mime: String) -> Bool {
    var slash: Int?
    var length = 0
    for byte in mime.utf8 {
        if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: ";") { return false }
        if byte == UInt8(ascii: "/") {
            guard slash == nil else { return false }
            slash = length
        }
        length += 1
    }
    guard let slash else { return false }
    return slash > 0 && slash < length - 1
}
