import WharfSystem

/// What the dialog engine needs to know about content types, and nothing more.
///
/// The engine does not depend on the content-type registry: the server adapts the registry to
/// this protocol (per client, since clients may declare their own types). Keeping the surface
/// small keeps the engine testable with a table of a dozen types.
///
/// A file's type comes from ``identify(name:status:readHead:)``, the same decision
/// `contentTypes/identify` and `wharf types identify` make, so a listing's `enabled` flag,
/// `choose`'s validation and the identification a client asks for never disagree.
public protocol ContentTypeOracle: Sendable {
    /// The identifier names a type the registry knows.
    func isKnown(_ identifier: String) -> Bool
    /// `identifier` is `other` or conforms to it (reflexive, transitive).
    func conforms(_ identifier: String, to other: String) -> Bool
    /// The type of a file: `name` is what it is listed or chosen under (a symlink's own name),
    /// `status` what it is (a followed link's target), and `readHead` reads its first bytes
    /// when the name does not decide.
    func identify(name: [UInt8], status: FileStatus, readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String
    /// The type a regular file with this name would have, judged by the name alone (for names
    /// that do not exist yet, such as a suggested filename).
    func type(forFilename name: [UInt8]) -> String
    /// The extension to give a file of this type (`"txt"` for `public.plain-text`), if any.
    func preferredFilenameExtension(of identifier: String) -> String?
    /// What to call the type in a dialog's type chooser ("plain text document"), if it has a
    /// description.
    func description(of identifier: String) -> String?
    /// How a frontend should filter its own file view for these types.
    func filters(for identifiers: [String]) -> DialogFilters
    /// The type is a package: a directory the user sees as a single file.
    func isPackage(_ identifier: String) -> Bool
    /// The extension `identifier` was made for, when it is a type no one declared, made for an
    /// extension no type claims (`UTType(filenameExtension: "zzqq")`, `dyn.…`): lowercased. A
    /// file with that extension is one of its files, whatever its contents identify it as,
    /// since nothing else can name it. Nil for every other type.
    func extensionOnlyType(_ identifier: String) -> String?
}

extension ContentTypeOracle {
    /// No type stands for a bare extension (a table of types for tests).
    public func extensionOnlyType(_ identifier: String) -> String? { nil }
}

/// Filters a frontend can apply in its own picker, derived from the allowed content types.
public struct DialogFilters: Sendable, Equatable {
    /// Filename globs (`*.txt`).
    public var globs: [String]
    /// MIME types (`text/plain`).
    public var mimeTypes: [String]
    /// The dialog picks directories.
    public var directories: Bool
    /// Every file passes (`public.item`, `public.data`, …): `globs` and `mimeTypes` are then
    /// empty. False with both empty means that no file does (a folder picker).
    public var allowsAllFiles: Bool

    public init(globs: [String] = [], mimeTypes: [String] = [], directories: Bool = false, allowsAllFiles: Bool = false) {
        self.globs = globs
        self.mimeTypes = mimeTypes
        self.directories = directories
        self.allowsAllFiles = allowsAllFiles
    }
}
