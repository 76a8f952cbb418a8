/// Where a type's declaration comes from.
enum TypeOrigin: Sendable {
    /// Built into Wharf (Apple's system-declared types).
    case system
    /// Declared by a client through its scope.
    case declared
    /// Made up on demand from a MIME type or filename extension (`dyn.…`).
    case dynamic
}

/// A resolved type: its declaration plus the closure of its conformance, computed once so
/// that `conforms` is a set lookup.
///
/// Identifiers compare case-insensitively, as Apple's do; `key` is the ASCII-lowercased form
/// every table is keyed by, `identifier` the spelling to show.
final class TypeRecord: Sendable {
    let identifier: String
    let key: String
    let description: String
    /// Direct parents (keys), in declaration order.
    let conformsTo: [String]
    /// Every ancestor (keys), nearest first, without the type itself.
    let supertypes: [String]
    /// Every ancestor and the type itself, for O(1) conformance checks.
    let conformanceSet: Set<String>
    let filenameExtensions: [String]
    let mimeTypes: [String]
    let origin: TypeOrigin

    init(identifier: String, description: String, conformsTo: [String], filenameExtensions: [String],
         mimeTypes: [String], origin: TypeOrigin, parentRecord: (String) -> TypeRecord?) {
        self.identifier = identifier
        self.key = asciiLowercased(identifier)
        self.description = description
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.origin = origin
        var ordered: [String] = []
        var seen: Set<String> = [key]
        // Breadth first: direct parents, then theirs; parents are resolved before children.
        for parent in conformsTo where seen.insert(parent).inserted {
            ordered.append(parent)
        }
        var index = 0
        while index < ordered.count {
            if let record = parentRecord(ordered[index]) {
                for ancestor in record.conformsTo where seen.insert(ancestor).inserted {
                    ordered.append(ancestor)
                }
            }
            index += 1
        }
        self.supertypes = ordered
        self.conformanceSet = seen
    }

    func conforms(to key: String) -> Bool { conformanceSet.contains(key) }
}
