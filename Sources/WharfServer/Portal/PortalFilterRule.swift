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
/// (`public.data`).
struct PortalFilterRule {
    var allowedContentTypes: [String]
    /// The whole filter: any of its globs or types.
    var predicate: URLPredicateParams
    /// Patterns that name nothing Wharf knows (`x-unknown/*`): they match nothing.
    var ignored: [String] = []

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
        predicate = .any(globs.map(URLPredicateParams.nameMatches) + identifiers.map(URLPredicateParams.conformsTo))
        allowedContentTypes = globs.isEmpty && !identifiers.isEmpty ? identifiers : ["public.data"]
    }
}
