import WharfContentTypes
import WharfProtocol
import WharfSystem

/// A portal filter as Wharf enforces it: MIME types become content types (wildcards the
/// top-level type Wharf has for them), globs `nameMatches` predicates, matched against the
/// name's bytes and case-sensitively, as the portal's documentation says of its globs.
///
/// The whole filter is one predicate (any of its globs or types): a named filter of the dialog
/// (``PortalDialog``), which the engine enforces while it is selected. A filter of MIME types
/// only also names the dialog's allowed content types, used when it is the call's only filter,
/// so that every presenter shows it as its filter; one with a glob allows any file
/// (`public.data`). A save holds the name the person gives to the filter the same way
/// (``destinationRule``, a destination-only exporter's `urlEnabled`).
struct PortalFilterRule {
    var allowedContentTypes: [String]
    /// The whole filter: any of its globs or types.
    var predicate: URLPredicateParams
    /// Patterns that name nothing Wharf knows (`x-unknown/*`): they match nothing.
    var ignored: [String] = []
    /// A save's rule (`SaveFile`): the name the person gives matches one of the filter's globs,
    /// or is the name of a file of one of its types. Folders stay enabled, to be browsed into
    /// and chosen to save in; the destination itself is judged as the file to be written.
    var destinationRule: URLPredicateParams

    /// The top-level MIME types Wharf has a content type for.
    static let wildcards: [String: String] = [
        "image": "public.image", "audio": "public.audio", "video": "public.movie", "text": "public.text",
        "font": "public.font", "application": "public.data", "*": "public.data",
    ]

    init(_ filter: PortalFilter, types: ContentTypeScope) {
        var globs: [String] = []
        var identifiers: [String] = []
        var ignored: [String] = []
        for pattern in filter.patterns {
            switch pattern {
            case .glob(let glob):
                globs.append(glob)
            case .mimeType(let mime):
                let lowered = String(decoding: mime.utf8.map(lowercaseASCII), as: UTF8.self)
                let identifier: String?
                if lowered == "*" || lowered.hasSuffix("/*") {
                    identifier = Self.wildcards[String(lowered.split(separator: "/").first ?? "*")]
                } else {
                    identifier = types.type(forMIMEType: lowered)
                }
                if let identifier, !identifiers.contains(identifier) {
                    identifiers.append(identifier)
                } else if identifier == nil {
                    ignored.append(mime)
                }
            }
        }
        self.ignored = ignored
        let names = globs.map(URLPredicateParams.nameMatches) + identifiers.map(URLPredicateParams.conformsTo)
        predicate = .any(names)
        destinationRule = .any([.isDirectory(true)] + names)
        allowedContentTypes = globs.isEmpty && !identifiers.isEmpty ? identifiers : ["public.data"]
    }
}
