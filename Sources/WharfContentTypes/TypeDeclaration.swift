/// A client's declaration of a type of its own — the Linux twin of an app's
/// `UTExportedTypeDeclarations` entry.
public struct TypeDeclaration: Sendable, Equatable {
    public var identifier: String
    /// Direct parents: system types, dynamic types, or types this client declared (earlier, or
    /// in the same `declare` call).
    public var conformsTo: [String]
    /// Without the leading dot; the first is the preferred one.
    public var filenameExtensions: [String]
    /// The first is the preferred one.
    public var mimeTypes: [String]
    public var description: String?

    public init(identifier: String, conformsTo: [String], filenameExtensions: [String] = [],
                mimeTypes: [String] = [], description: String? = nil) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
    }
}

/// Why a declaration was refused. Every case names the identifier at fault, so the message a
/// client sees says which of its types to fix.
public enum ContentTypeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request declares no type at all.
    case noTypes
    /// The identifier is empty.
    case emptyIdentifier
    /// The identifier has characters a type identifier may not hold (only ASCII letters,
    /// digits, `-` and `.` are allowed), or is reserved (`dyn.…`).
    case invalidIdentifier(String)
    /// The system already declares this identifier; a client cannot redefine it.
    case alreadyDeclaredBySystem(String)
    /// This client already declared the identifier differently.
    case alreadyDeclared(String)
    /// `type` names a parent that is neither a system type, a valid dynamic type, nor one of the
    /// client's types.
    case unknownParent(type: String, parent: String)
    /// `type` conforms to nothing: it would match no importer, not even `public.item`'s.
    case noParents(String)
    /// Following parents from `type` leads back to it; `path` is the loop.
    case cycle(type: String, path: [String])
    /// The same identifier appears twice in one call.
    case duplicateDeclaration(String)
    /// A filename extension or MIME type of `type` is malformed.
    case invalidTag(type: String, tag: String)
    /// `type` (shortened) is larger than a declaration may be, for the reason given.
    case tooLarge(type: String, reason: String)

    public var description: String {
        switch self {
        case .noTypes:
            return "types must not be empty"
        case .emptyIdentifier:
            return "a declared type has an empty identifier"
        case .invalidIdentifier(let id):
            return "'\(id)' is not a valid type identifier (use ASCII letters, digits, '-' and '.'; 'dyn.' is reserved)"
        case .alreadyDeclaredBySystem(let id):
            return "'\(id)' is declared by the system and cannot be redeclared"
        case .alreadyDeclared(let id):
            return "'\(id)' is already declared by this client with a different declaration"
        case .unknownParent(let type, let parent):
            return "'\(type)' conforms to '\(parent)', which is not a known type"
        case .noParents(let id):
            return "'\(id)' conforms to nothing; name at least one parent in conformsTo (public.data for a file format, public.directory for a package)"
        case .cycle(let type, let path):
            return "'\(type)' conforms to itself through \(path.joined(separator: " → "))"
        case .duplicateDeclaration(let id):
            return "'\(id)' is declared twice in the same request"
        case .invalidTag(let type, let tag):
            return "'\(type)' declares the malformed tag '\(tag)'"
        case .tooLarge(let type, let reason):
            return "'\(type)' \(reason)"
        }
    }
}
