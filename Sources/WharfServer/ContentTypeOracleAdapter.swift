import WharfContentTypes
import WharfDialogs
import WharfSystem

/// The dialog engine's view of one client's content types: the registry with the client's own
/// declarations, as they stood when the dialog was presented (a snapshot, like the rest of
/// the dialog's configuration).
struct ContentTypeOracleAdapter: ContentTypeOracle {
    let scope: ContentTypeScope

    func isKnown(_ identifier: String) -> Bool { scope.isKnown(identifier) }

    func conforms(_ identifier: String, to other: String) -> Bool { scope.conforms(identifier, to: other) }

    func identify(name: [UInt8], status: FileStatus, readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String {
        let file = FileToIdentify(name: name, status: status, path: FilePath(unchecked: name), readHead: readHead)
        switch scope.identify(file, sniff: true) {
        case .success(let found): return found.identifier
        // Unreadable contents: the name alone decides (such a file cannot be chosen anyway).
        case .failure: return (try? scope.identify(file, sniff: false).get().identifier) ?? "public.data"
        }
    }

    func type(forFilename name: [UInt8]) -> String {
        scope.type(forFilename: name)
    }

    func extensionOnlyType(_ identifier: String) -> String? {
        scope.extensionOfDynamicType(identifier)
    }

    func preferredFilenameExtension(of identifier: String) -> String? {
        scope.preferredFilenameExtension(of: identifier)
    }

    func description(of identifier: String) -> String? {
        guard let description = scope.describe(identifier)?.description, !description.isEmpty else { return nil }
        return description
    }

    func filters(for identifiers: [String]) -> WharfDialogs.DialogFilters {
        let filters = scope.filters(for: identifiers)
        // "All files" is an empty filter for a frontend, said in so many words: a folder
        // picker's filter is empty too, and means no file.
        if filters.allowsAllFiles {
            return WharfDialogs.DialogFilters(globs: [], mimeTypes: [], directories: filters.directories, allowsAllFiles: true)
        }
        return WharfDialogs.DialogFilters(globs: filters.globs, mimeTypes: filters.mimeTypes, directories: filters.directories)
    }

    func isPackage(_ identifier: String) -> Bool {
        scope.conforms(identifier, to: "com.apple.package")
    }
}
