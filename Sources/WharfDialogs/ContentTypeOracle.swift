/// What the dialog engine needs to know about content types, and nothing more.
///
/// The engine does not depend on the content-type registry: the server adapts the registry to
/// this protocol (per client, since clients may declare their own types). Keeping the surface
/// small keeps the engine testable with a table of a dozen types.
///
/// Identification is by name only, as on macOS, where a file's type comes from its filename
/// extension (and a directory's from its extension too, which is how packages are recognised).
/// This keeps a listing's `enabled` flag and `choose`'s validation the same function, and a
/// listing of 100,000 entries free of reads.
public protocol ContentTypeOracle: Sendable {
    /// The identifier names a type the registry knows.
    func isKnown(_ identifier: String) -> Bool
    /// `identifier` is `other` or conforms to it (reflexive, transitive).
    func conforms(_ identifier: String, to other: String) -> Bool
    /// The type of a directory entry judged by its name: for files usually by extension,
    /// falling back to `public.data`; for directories a package type or `public.folder`.
    func identifyByName(_ name: String, isDirectory: Bool) -> String
    /// The extension to give a file of this type (`"txt"` for `public.plain-text`), if any.
    func preferredFilenameExtension(of identifier: String) -> String?
    /// How a frontend should filter its own file view for these types.
    func filters(for identifiers: [String]) -> DialogFilters
    /// The type is a package: a directory the user sees as a single file.
    func isPackage(_ identifier: String) -> Bool
}

/// Filters a frontend can apply in its own picker, derived from the allowed content types.
public struct DialogFilters: Sendable, Equatable {
    /// Filename globs (`*.txt`).
    public var globs: [String]
    /// MIME types (`text/plain`).
    public var mimeTypes: [String]
    /// The dialog picks directories.
    public var directories: Bool

    public init(globs: [String] = [], mimeTypes: [String] = [], directories: Bool = false) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
    }
}
