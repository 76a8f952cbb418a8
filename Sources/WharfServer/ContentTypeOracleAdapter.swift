import WharfContentTypes
import WharfDialogs

/// The dialog engine's view of one client's content types: the registry with the client's own
/// declarations, as they stood when the dialog was presented (a snapshot, like the rest of
/// the dialog's configuration).
struct ContentTypeOracleAdapter: ContentTypeOracle {
    let scope: ContentTypeScope

    func isKnown(_ identifier: String) -> Bool { scope.isKnown(identifier) }

    func conforms(_ identifier: String, to other: String) -> Bool { scope.conforms(identifier, to: other) }

    func identifyByName(_ name: String, isDirectory: Bool) -> String {
        scope.identifyByName(name, isDirectory: isDirectory)
    }

    func preferredFilenameExtension(of identifier: String) -> String? {
        scope.preferredFilenameExtension(of: identifier)
    }

    func filters(for identifiers: [String]) -> WharfDialogs.DialogFilters {
        let filters = scope.filters(for: identifiers)
        // "All files" is an empty filter for a frontend.
        if filters.allowsAllFiles { return WharfDialogs.DialogFilters(globs: [], mimeTypes: [], directories: filters.directories) }
        return WharfDialogs.DialogFilters(globs: filters.globs, mimeTypes: filters.mimeTypes, directories: filters.directories)
    }

    func isPackage(_ identifier: String) -> Bool {
        scope.conforms(identifier, to: "com.apple.package")
    }
}
