/// The content types one client sees: the shared registry plus the types that client declared.
///
/// Every question a client asks goes through its scope, so its declarations take part in
/// conformance, lookups, identification and dialog filters — for that client only. A scope is
/// a value: the server keeps one per client and replaces it on `declare`; copies are cheap
/// (two references).
///
/// Identifiers are compared case-insensitively (ASCII), as Apple does; answers use the declared
/// spelling.
public struct ContentTypeScope: Sendable {
    public let registry: ContentTypeRegistry
    private(set) var declared: DeclaredTypes = .empty
    /// Filters worked out for this scope's declarations (replaced with them).
    private(set) var declaredFilterCache = FilterCache()

    public init(registry: ContentTypeRegistry = .system) {
        self.registry = registry
    }

    /// Adds a client's own types. The whole batch is checked before anything is added:
    /// identifiers must be non-empty and well formed, not the system's, not already declared
    /// differently; parents must be known (system, dynamic, earlier or in this batch); there
    /// must be no conformance loop. Re-declaring an identical type is accepted and changes
    /// nothing, so a client may repeat its declarations after reconnecting.
    public mutating func declare(_ types: [TypeDeclaration]) throws(ContentTypeError) {
        declared = try Self.adding(types, to: declared, tables: registry.tables)
        declaredFilterCache = FilterCache()
    }

    // MARK: Identifiers and conformance

    /// Whether the identifier names a type: system, declared by this client, or a valid `dyn.…`.
    public func isKnown(_ identifier: String) -> Bool { record(identifier) != nil }

    /// The identifier as declared (e.g. `PUBLIC.PNG` → `public.png`), or nil if unknown.
    public func canonical(_ identifier: String) -> String? { record(identifier)?.identifier }

    /// Whether `identifier` is `parent` or conforms to it, directly or through any chain of
    /// parents, in either tree. False when either is unknown. Costs a couple of hash lookups.
    public func conforms(_ identifier: String, to parent: String) -> Bool {
        guard let record = record(identifier) else { return false }
        let parentKey = asciiLowercased(parent)
        return record.conformanceSet.contains(parentKey)
    }

    /// Everything about one type, or nil if unknown.
    public func describe(_ identifier: String) -> TypeDescription? {
        guard let record = record(identifier) else { return nil }
        let display: (String) -> String = { self.record($0)?.identifier ?? $0 }
        var description = record.description
        if record.origin == .dynamic {
            description = dynamicDescription(record)
        }
        return TypeDescription(
            identifier: record.identifier, description: description,
            conformsTo: record.conformsTo.map(display), supertypes: record.supertypes.map(display),
            preferredFilenameExtension: record.filenameExtensions.first,
            filenameExtensions: record.filenameExtensions,
            preferredMIMEType: record.mimeTypes.first, mimeTypes: record.mimeTypes,
            isDeclared: record.origin != .dynamic, isDynamic: record.origin == .dynamic)
    }

    public func preferredFilenameExtension(of identifier: String) -> String? {
        record(identifier)?.filenameExtensions.first
    }

    public func preferredMIMEType(of identifier: String) -> String? {
        record(identifier)?.mimeTypes.first
    }

    // MARK: Lookups by tag

    /// `UTType(filenameExtension:conformingTo:)`: the type for files with this extension that
    /// conforms to `parent` (default `public.data`). System declarations come first, then this
    /// client's, then the MIME database's globs; when none fits, a dynamic type for the
    /// extension that conforms to `parent`. Nil for an empty or malformed extension or an
    /// unknown parent. A leading dot is not part of an extension (`"png"`, not `".png"`); a `;`
    /// is not in one either (a dynamic identifier's payload keeps its conformance after one).
    public func type(forFilenameExtension ext: String, conformingTo parent: String? = nil) -> String? {
        let ext = asciiLowercased(ext)
        guard !ext.isEmpty, !ext.hasPrefix("."), !ext.contains("/"), !ext.utf8.contains(0),
              !ext.utf8.contains(UInt8(ascii: ";")) else { return nil }
        let parentKey = parent.map(asciiLowercased) ?? "public.data"
        guard record(parentKey) != nil else { return nil }
        let tables = registry.tables
        if let system = tables.systemByExtension[ext], system.conforms(to: parentKey) { return system.identifier }
        if let declared = declared.byExtension[ext], declared.conforms(to: parentKey) { return declared.identifier }
        var found: String?
        for match in globMatches(("file." + ext).utf8, tables: tables) {
            let id = identifier(forMIMEIndex: match.type, tables: tables)
            if found == nil, record(id)?.conforms(to: parentKey) == true { found = id }
        }
        if let found { return found }
        return DynamicIdentifier(tag: .filenameExtension(ext), conformsTo: parentKey == "public.data" ? nil : parentKey).identifier
    }

    /// The extension (lowercased) of a dynamic type made for a filename extension
    /// (``type(forFilenameExtension:conformingTo:)`` when no type claims it); nil for any
    /// other identifier. Files with that extension are that type's only known files.
    public func extensionOfDynamicType(_ identifier: String) -> String? {
        guard let dynamic = DynamicIdentifier(identifier), case .filenameExtension(let ext) = dynamic.tag else { return nil }
        return asciiLowercased(ext)
    }

    /// `UTType(mimeType:conformingTo:)`: the type for a MIME type (aliases resolved, parameters
    /// ignored unless a system type declares that exact spelling, as `public.utf8-plain-text`
    /// does for `text/plain;charset=utf-8`). Types the system does not declare get a dynamic
    /// identifier conforming to what the MIME database says about them. With `parent`, the
    /// answer conforms to it (a dynamic type is made to when needed). Nil for a malformed MIME
    /// type or an unknown parent.
    public func type(forMIMEType mimeType: String, conformingTo parent: String? = nil) -> String? {
        let tables = registry.tables
        let exact = asciiLowercased(mimeType).filter { $0 != " " }
        let parentKey = parent.map(asciiLowercased)
        if let parentKey, record(parentKey) == nil { return nil }
        if exact.contains(";"), let system = tables.systemByMIME[exact],
           parentKey.map({ system.conforms(to: $0) }) ?? true {
            return system.identifier
        }
        let canonical = tables.database.canonicalName(mimeType)
        guard isValidMIMEType(canonical) else { return nil }
        let id = identifier(forMIME: canonical, tables: tables)
        guard let parentKey, record(id)?.conforms(to: parentKey) != true else { return id }
        return DynamicIdentifier(tag: .mimeType(canonical), conformsTo: parentKey).identifier
    }

    // MARK: Internals shared by the extensions

    /// The resolved type for an identifier in this scope.
    func record(_ identifier: String) -> TypeRecord? {
        let key = asciiLowercased(identifier)
        if !declared.records.isEmpty, let record = declared.records[key] { return record }
        let declared = self.declared
        return registry.tables.record(forKey: key, resolve: { declared.records[$0] })
    }

    /// The identifier a canonical MIME type maps to here: a system type claiming it, else a type
    /// this client declared with it, else its dynamic identifier.
    func identifier(forMIME canonical: String, tables: Tables) -> String {
        if let system = tables.systemByMIME[canonical] { return system.identifier }
        if !declared.byMIME.isEmpty, let declared = declared.byMIME[canonical] { return declared.identifier }
        return tables.systemIdentifier(forMIME: canonical)
    }

    /// Same, for a MIME type of the database by index.
    @inline(__always)
    func identifier(forMIMEIndex index: Int32, tables: Tables) -> String {
        let id = tables.identifier(forType: index)
        if declared.byMIME.isEmpty || !id.hasPrefix(DynamicIdentifier.prefix) { return id }
        return declared.byMIME[tables.database.typeNames[Int(index)]]?.identifier ?? id
    }

    private func dynamicDescription(_ record: TypeRecord) -> String {
        if let mime = record.mimeTypes.first {
            return registry.tables.database.comment(for: mime) ?? "\(mime) document"
        }
        if let ext = record.filenameExtensions.first { return "\(ext) document" }
        return record.identifier
    }
}
