import WharfSystem

/// What a file dialog should show for a list of allowed types, in the terms presenters speak
/// (GTK's `GtkFileFilter`, the portal's filters): name globs and MIME types.
///
/// **"No filter"** is explicit: `allowsAllFiles` is true, `globs` is `["*"]` (so a presenter
/// that only reads globs still shows everything) and `mimeTypes` is empty. When
/// `allowsAllFiles` is false, empty lists mean that *no* file matches — which is what a
/// folder-only dialog (`[public.folder]`) needs. A file passes when its name matches a glob
/// (case-insensitively, as shared-mime-info matches names) or its MIME type matches one of
/// `mimeTypes` (where `image/*` matches every `image/` type).
public struct DialogFilters: Sendable, Equatable {
    public var allowsAllFiles: Bool
    public var globs: [String]
    public var mimeTypes: [String]
    /// Whether plain directories may be chosen (the allowed types include `public.folder`,
    /// `public.directory` or `public.item`). Package directories (`Foo.app`) are matched by
    /// their globs instead.
    public var directories: Bool

    public init(allowsAllFiles: Bool, globs: [String], mimeTypes: [String], directories: Bool) {
        self.allowsAllFiles = allowsAllFiles
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
    }
}

extension ContentTypeScope {
    /// The dialog filter for `allowed`, expanded so that it lets through exactly the files that
    /// conform to one of the allowed types (as far as names and MIME types can say):
    ///
    /// - `public.item`, `public.data` and `public.content` mean no filter (`public.item` also
    ///   allows directories);
    /// - `public.folder` / `public.directory` allow directories;
    /// - any other type contributes the globs and MIME types of every type that conforms to it —
    ///   system types, this client's, and every type of the MIME database — so `public.archive`
    ///   lists zip, gzip, tar, … and a declared `com.example.notes` lists `*.notes`; a dynamic
    ///   type made for an extension (`zzqq`) lists `*.zzqq`;
    /// - abstract media types become wildcards (`public.image` → `image/*`, `public.audio` →
    ///   `audio/*`, `public.movie` → `video/*`, `public.font` → `font/*`, `public.plain-text`
    ///   and `public.text` → `text/*`), replacing the concrete MIME types they cover — but only
    ///   when the wildcard is exact, i.e. every type of the database under it conforms (`text/*`
    ///   does not stand for `public.plain-text`, since `text/html` is `public.html`: text, but
    ///   not plain text).
    ///
    /// Unknown identifiers contribute nothing; an empty list allows nothing.
    ///
    /// Walking every type for conformance costs about a millisecond for a type with many
    /// descendants (`public.plain-text`: some 300 globs), so answers are remembered, per set of
    /// types: in the registry for a client that declared nothing (most clients, sharing the
    /// work), in the scope itself otherwise (its declarations change the answers).
    public func filters(for allowed: [String]) -> DialogFilters {
        // One type is what nearly every dialog asks for: its key is its record's, without the
        // set, the sorting and the joined string a list needs (a twentieth of a cycle).
        let key = allowed.count == 1 ? record(allowed[0])?.key ?? ""
            : Set(allowed.compactMap { record($0)?.key }).sorted().joined(separator: "\u{0}")
        let cache = declared.isEmpty ? registry.filterCache : declaredFilterCache
        return cache.value(for: key) { computeFilters(for: allowed) }
    }

    private func computeFilters(for allowed: [String]) -> DialogFilters {
        var result = DialogFilters(allowsAllFiles: false, globs: [], mimeTypes: [], directories: false)
        let records = allowed.compactMap { record($0) }
        for record in records {
            switch record.key {
            case "public.item":
                result.allowsAllFiles = true
                result.directories = true
            case "public.data", "public.content":
                result.allowsAllFiles = true
            case "public.directory", "public.folder":
                result.directories = true
            default:
                break
            }
        }
        if result.allowsAllFiles {
            result.globs = ["*"]
            return result
        }
        let targets = records.filter { !["public.directory", "public.folder"].contains($0.key) }
        guard !targets.isEmpty else { return result }

        let tables = registry.tables
        let database = tables.database
        func conformsToTarget(_ record: TypeRecord) -> Bool {
            targets.contains { record.conforms(to: $0.key) }
        }
        // Which MIME types of the database conform, decided once.
        let databaseConforms: [Bool] = database.typeNames.indices.map { index in
            record(identifier(forMIMEIndex: Int32(index), tables: tables)).map(conformsToTarget) ?? false
        }
        // A wildcard stands in only when it is exact: every type under it conforms.
        var wildcards: [String] = []
        for target in targets {
            for wildcard in Self.wildcards(for: target.key) where !wildcards.contains(wildcard) {
                let prefix = wildcard.dropLast()
                let exact = database.typeNames.indices.allSatisfy { index in
                    !database.typeNames[index].hasPrefix(prefix) || databaseConforms[index]
                }
                if exact { wildcards.append(wildcard) }
            }
        }
        var globs: [String] = []
        var globSet: Set<String> = []
        var mimeTypes: [String] = wildcards
        var mimeSet = Set(wildcards)
        func addGlob(_ glob: String) {
            if globSet.insert(glob).inserted { globs.append(glob) }
        }
        func addMIME(_ mime: String) {
            guard !mime.contains(";"), !wildcards.contains(where: { mime.hasPrefix($0.dropLast()) }) else { return }
            if mimeSet.insert(mime).inserted { mimeTypes.append(mime) }
        }

        var candidates = systemTypeDeclarations.compactMap { tables.systemTypes[asciiLowercased($0.identifier)] }
        candidates += declared.records.values.sorted { $0.key < $1.key }
        // A glob must name no file that identifies as another type. A file named by an extension
        // the table or this client claims is the claimant's (`a.html` is HTML, whatever else
        // lists `*.html`), so the glob is there when the claimant conforms; a package's globs
        // are for directories.
        for candidate in candidates where conformsToTarget(candidate) {
            let isPackage = candidate.conforms(to: "public.directory")
            for ext in candidate.filenameExtensions
            where isPackage || fileType(claimingExtension: ext, tables: tables).map(conformsToTarget) ?? true {
                addGlob("*." + ext)
            }
            for mime in candidate.mimeTypes { addMIME(database.canonicalName(mime)) }
        }
        // A type made for an extension nobody claims names its files by that extension alone.
        for target in targets {
            if let ext = extensionOfDynamicType(target.identifier) { addGlob("*." + ext) }
        }
        for index in database.typeNames.indices where databaseConforms[index] {
            let name = database.typeNames[index]
            let patterns = database.patterns[index]
            if !patterns.isEmpty || !name.hasPrefix("inode/") { addMIME(name) }
            let caseSensitive = database.caseSensitivePatterns[Int32(index)] ?? []
            for pattern in patterns {
                // A filter's globs match whatever the case: `*.C` (C++) would be every `*.c` (C).
                // The type's MIME type, listed, stands for its case-sensitive patterns.
                if caseSensitive.contains(pattern) { continue }
                if let ext = simpleExtension(of: pattern), fileType(claimingExtension: ext, tables: tables) != nil { continue }
                addGlob(asciiLowercased(pattern))
            }
        }
        result.globs = globs
        result.mimeTypes = mimeTypes
        return result
    }

    private static func wildcards(for key: String) -> [String] {
        switch key {
        case "public.image": return ["image/*"]
        case "public.audio": return ["audio/*"]
        case "public.movie", "public.video": return ["video/*"]
        case "public.audiovisual-content": return ["video/*", "audio/*"]
        case "public.font": return ["font/*"]
        case "public.text", "public.plain-text": return ["text/*"]
        default: return []
        }
    }
}

/// Dialog filters already worked out, by set of types. Bounded, by entries and by the bytes of
/// their globs and MIME types: a client asking for ever new sets of types empties it rather
/// than growing it.
///
/// Each set is worked out once: askers that arrive while it is being worked out wait for that
/// answer rather than repeat the work, so clients opening their first dialogs at once walk the
/// type tables once, not once each.
///
/// `@unchecked Sendable`: `entries` and `bytes` are only touched with `lock` held.
final class FilterCache: @unchecked Sendable {
    private enum Entry {
        case computing
        case known(DialogFilters)
    }

    private let lock = ConditionLock()
    private var entries: [String: Entry] = [:]  // guarded by `lock`
    private var bytes = 0  // guarded by `lock`: of the known entries' globs and MIME types
    static let capacity = 512
    /// 512 sets of a client's declared types could each hold a filter as large as all its
    /// declarations (256 KiB): 128 MiB for one client, where 8 MiB holds every set a real
    /// client asks for many times over.
    static let capacityBytes = 8 << 20

    func value(for key: String, _ compute: () -> DialogFilters) -> DialogFilters {
        lock.lock()
        var entry = entries[key]
        while case .computing? = entry {
            lock.wait()
            entry = entries[key]
        }
        if case .known(let filters)? = entry {
            lock.unlock()
            return filters
        }
        if entries.count >= Self.capacity { empty() }
        entries[key] = .computing
        lock.unlock()
        // Worked out outside the lock (pure CPU work, about a millisecond), then shared. Those
        // waiting for a set emptied out meanwhile find nothing and work it out themselves.
        let filters = compute()
        let size = filters.byteCount
        lock.withLock {
            if bytes + size > Self.capacityBytes { empty() }
            entries[key] = .known(filters)
            bytes += size
            lock.broadcast()
        }
        return filters
    }

    /// Forgets every entry (those being worked out are stored again when they are done).
    private func empty() {
        entries.removeAll(keepingCapacity: true)
        bytes = 0
    }

    /// The bytes the cache holds, for the test of its bound.
    var byteCount: Int { lock.withLock { bytes } }
}

extension DialogFilters {
    /// The bytes of its globs and MIME types.
    var byteCount: Int { (globs + mimeTypes).reduce(0) { $0 + $1.utf8.count } }
}
