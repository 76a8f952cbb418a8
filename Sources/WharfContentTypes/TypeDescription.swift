/// Everything there is to say about one type, as `contentTypes/describe` reports it.
public struct TypeDescription: Sendable, Equatable {
    public var identifier: String
    public var description: String
    /// Direct parents.
    public var conformsTo: [String]
    /// Every type this one conforms to, nearest first, without itself.
    public var supertypes: [String]
    public var preferredFilenameExtension: String?
    public var filenameExtensions: [String]
    public var preferredMIMEType: String?
    public var mimeTypes: [String]
    /// Declared by the system or by this client (not made up on demand).
    public var isDeclared: Bool
    /// A `dyn.…` type made up from a MIME type or filename extension.
    public var isDynamic: Bool
}

extension TypeDescription {
    /// About the bytes it takes as JSON: its names and tags, and a little for the rest.
    public var byteCount: Int {
        let names = [identifier, description] + conformsTo + supertypes + filenameExtensions + mimeTypes
        return names.reduce(200) { $0 + $1.utf8.count + 3 }
    }
}
