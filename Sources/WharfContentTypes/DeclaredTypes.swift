/// One client's declared types, immutable; `declare` builds a new one.
final class DeclaredTypes: Sendable {
    let records: [String: TypeRecord]
    let declarations: [String: TypeDeclaration]
    /// Lowercased extension → first declared type claiming it.
    let byExtension: [String: TypeRecord]
    /// Lowercased, canonical MIME type → first declared type claiming it.
    let byMIME: [String: TypeRecord]

    static let empty = DeclaredTypes(records: [:], declarations: [:], byExtension: [:], byMIME: [:])

    var isEmpty: Bool { records.isEmpty }

    init(records: [String: TypeRecord], declarations: [String: TypeDeclaration],
         byExtension: [String: TypeRecord], byMIME: [String: TypeRecord]) {
        self.records = records
        self.declarations = declarations
        self.byExtension = byExtension
        self.byMIME = byMIME
    }
}

extension ContentTypeScope {
    /// Validates a batch against the system types and this client's earlier declarations, and
    /// returns the client's declarations with the batch added. Nothing changes on error.
    static func adding(_ batch: [TypeDeclaration], to declared: DeclaredTypes, tables: Tables) throws(ContentTypeError) -> DeclaredTypes {
        guard !batch.isEmpty else { throw .noTypes }
        for declaration in batch { try DeclarationLimits.check(declaration) }
        if declared.declarations.count + batch.count > DeclarationLimits.types {
            throw .tooLarge(type: DeclarationLimits.shortened(batch[0].identifier),
                            reason: "would take this client past \(DeclarationLimits.types) declared types")
        }
        var pending: [String: TypeDeclaration] = [:]
        var order: [String] = []
        for declaration in batch {
            let id = declaration.identifier
            guard !id.isEmpty else { throw .emptyIdentifier }
            guard isValidIdentifier(id) else { throw .invalidIdentifier(id) }
            let key = asciiLowercased(id)
            if tables.systemTypes[key] != nil { throw .alreadyDeclaredBySystem(id) }
            if pending[key] != nil { throw .duplicateDeclaration(id) }
            if let existing = declared.declarations[key] {
                if existing == declaration { continue }
                throw .alreadyDeclared(id)
            }
            for ext in declaration.filenameExtensions {
                if ext.isEmpty || ext.hasPrefix(".") || ext.contains("/") || ext.utf8.contains(0) {
                    throw .invalidTag(type: id, tag: ext)
                }
            }
            for mime in declaration.mimeTypes where !isValidMIMEType(asciiLowercased(mime)) {
                throw .invalidTag(type: id, tag: mime)
            }
            pending[key] = declaration
            order.append(key)
        }
        let total = declared.declarations.values.reduce(0) { $0 + DeclarationLimits.bytes(of: $1) }
            + pending.values.reduce(0) { $0 + DeclarationLimits.bytes(of: $1) }
        if total > DeclarationLimits.totalBytes {
            throw .tooLarge(type: DeclarationLimits.shortened(batch[0].identifier),
                            reason: "would take this client's declarations past \(DeclarationLimits.totalBytes) bytes of names, tags and descriptions")
        }

        // Parents there must be, and they must exist: in the system, as a valid dynamic type,
        // among the client's earlier declarations, or in this batch.
        for key in order {
            let declaration = pending[key]!
            guard !declaration.conformsTo.isEmpty else { throw .noParents(declaration.identifier) }
            for parent in declaration.conformsTo {
                let parentKey = asciiLowercased(parent)
                let known = pending[parentKey] != nil || declared.records[parentKey] != nil
                    || tables.record(forKey: parentKey, resolve: { declared.records[$0] }) != nil
                if !known { throw .unknownParent(type: declaration.identifier, parent: parent) }
            }
        }

        // Earlier declarations cannot name later ones, so loops can only run inside the batch.
        var state: [String: Bool] = [:]  // false: on the current path; true: done
        var sorted: [String] = []
        func visit(_ key: String, path: [String]) throws(ContentTypeError) {
            if state[key] == true { return }
            if state[key] == false {
                let loop = path.drop(while: { asciiLowercased($0) != key }) + [pending[key]!.identifier]
                throw .cycle(type: pending[key]!.identifier, path: Array(loop))
            }
            state[key] = false
            let declaration = pending[key]!
            for parent in declaration.conformsTo {
                let parentKey = asciiLowercased(parent)
                if pending[parentKey] != nil {
                    try visit(parentKey, path: path + [declaration.identifier])
                }
            }
            state[key] = true
            sorted.append(key)
        }
        for key in order { try visit(key, path: []) }

        var records = declared.records
        var declarations = declared.declarations
        var byExtension = declared.byExtension
        var byMIME = declared.byMIME
        for key in sorted {
            let declaration = pending[key]!
            var parents: [String] = []
            for parent in declaration.conformsTo.map(asciiLowercased) where !parents.contains(parent) {
                parents.append(parent)
            }
            let known = records
            let record = TypeRecord(
                identifier: declaration.identifier,
                description: declaration.description ?? declaration.identifier,
                conformsTo: parents,
                filenameExtensions: declaration.filenameExtensions.map(asciiLowercased),
                mimeTypes: declaration.mimeTypes.map(asciiLowercased),
                origin: .declared,
                parentRecord: { parentKey in
                    known[parentKey] ?? tables.record(forKey: parentKey, resolve: { known[$0] })
                })
            records[key] = record
            declarations[key] = declaration
            for ext in record.filenameExtensions where byExtension[ext] == nil { byExtension[ext] = record }
            for mime in record.mimeTypes {
                let canonical = tables.database.canonicalName(mime)
                if byMIME[canonical] == nil { byMIME[canonical] = record }
            }
        }
        return DeclaredTypes(records: records, declarations: declarations, byExtension: byExtension, byMIME: byMIME)
    }

    /// ASCII letters, digits, `-` and `.`, not starting or ending with `.`, not `dyn.…`.
    static func isValidIdentifier(_ id: String) -> Bool {
        guard !id.hasPrefix("."), !id.hasSuffix("."), !asciiLowercased(id).hasPrefix(DynamicIdentifier.prefix) else {
            return false
        }
        return id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
    }
}

/// How large a client's declarations may be. What a client declares becomes the filters of its
/// dialogs, which go to the presenter (over the daemon, a presenter every app shares) with every
/// dialog: real declarations are a few short names, and these bounds keep an app from making
/// every dialog it shows megabytes long.
enum DeclarationLimits {
    /// Bytes of an identifier, a filename extension or a MIME type.
    static let tagBytes = 255
    /// Parents, extensions and MIME types of one type, each.
    static let tagsPerType = 64
    /// Characters (code points) of a description.
    static let descriptionLength = 4096
    /// Types one client may declare.
    static let types = 1024
    /// Bytes of everything one client declares together: the bound on its filters, which every
    /// dialog of its carries, and on what describing or filtering its types answers. The bounds
    /// above, each alone, would allow tens of megabytes of filters, and a chain of long names
    /// whose deepest type's `supertypes` is hundreds of kilobytes.
    static let totalBytes = 256 * 1024

    static func check(_ declaration: TypeDeclaration) throws(ContentTypeError) {
        let id = shortened(declaration.identifier)
        if declaration.identifier.utf8.count > tagBytes {
            throw .tooLarge(type: id, reason: "is longer than \(tagBytes) bytes")
        }
        for (tags, what) in [(declaration.conformsTo, "parents"), (declaration.filenameExtensions, "filename extensions"),
                             (declaration.mimeTypes, "MIME types")] {
            if tags.count > tagsPerType { throw .tooLarge(type: id, reason: "declares more than \(tagsPerType) \(what)") }
            if let long = tags.first(where: { $0.utf8.count > tagBytes }) {
                throw .tooLarge(type: id, reason: "declares \(what) longer than \(tagBytes) bytes ('\(shortened(long))')")
            }
        }
        if let description = declaration.description, description.unicodeScalars.count > descriptionLength {
            throw .tooLarge(type: id, reason: "has a description longer than \(descriptionLength) characters")
        }
    }

    /// The bytes a declaration holds: its names, tags and description.
    static func bytes(of declaration: TypeDeclaration) -> Int {
        declaration.identifier.utf8.count + (declaration.description?.utf8.count ?? 0)
            + (declaration.conformsTo + declaration.filenameExtensions + declaration.mimeTypes).reduce(0) { $0 + $1.utf8.count }
    }

    /// At most 64 characters of `text`, for a message about it.
    static func shortened(_ text: String) -> String {
        text.unicodeScalars.count <= 64 ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(64))) + "…"
    }
}
