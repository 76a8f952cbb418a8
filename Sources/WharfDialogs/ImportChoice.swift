#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfSystem

/// Validates the files a user picked in an importer, the way a real dialog would not let them
/// be confirmed: each must exist, be enabled by the dialog's rules (exactly as the listing
/// judged it), and open for reading; one unless multiple selection is on.
///
/// Symlinks are resolved here, once; the identity recorded is that of the file actually
/// opened, so the access layer can later tell if the path was swapped.
struct ImportChoice: Sendable {
    /// The files, in the order chosen (duplicates dropped).
    var files: [ChosenFile]
    /// The first file's path as chosen (normalised, not resolved): where the user was.
    var firstChosenPath: String

    static func validate(
        urls: [String], allowsMultipleSelection: Bool, importsUnresolvedAliases: Bool,
        rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> ImportChoice {
        guard !urls.isEmpty else {
            throw .invalidArgument(field: "urls", reason: "must name at least one file")
        }
        if !allowsMultipleSelection && urls.count > 1 {
            throw .rejectedChoice(url: urls[1], reason: "this dialog takes a single file, and \(urls.count) were chosen")
        }
        var files: [ChosenFile] = []
        var seen = Set<String>()
        var firstChosenPath = ""
        for (index, url) in urls.enumerated() {
            let (file, chosenPath) = try validate(
                url: url, importsUnresolvedAliases: importsUnresolvedAliases, rules: rules, types: types)
            if index == 0 { firstChosenPath = chosenPath }
            if seen.insert(file.path).inserted { files.append(file) }
        }
        return ImportChoice(files: files, firstChosenPath: firstChosenPath)
    }

    private static func validate(
        url: String, importsUnresolvedAliases: Bool, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> (ChosenFile, String) {
        guard let raw = FileURL.pathOrURL(url) else {
            throw .rejectedChoice(url: url, reason: "it is neither an absolute path nor a file: URL")
        }
        let path = FilePath.normalize(raw)
        let link: FileStatus
        do {
            link = try FileStatus.ofLink(path)
        } catch {
            throw .rejectedChoice(url: url, reason: error.code == ENOENT ? "it does not exist" : error.description)
        }
        var status = link
        var broken = false
        if link.kind == .symlink {
            if let target = try? FileStatus.of(path) { status = target } else { broken = true }
        }
        let facts = EntryFacts(
            name: FilePath.lastComponent(of: path), directory: FilePath.directory(of: path), explicitPath: path,
            status: status,
            isSymlink: link.kind == .symlink, isBrokenSymlink: broken,
            browserOptions: rules.browserOptions, types: types)
        if let reason = rules.rejection(of: facts, types: types) {
            throw .rejectedChoice(url: url, reason: reason)
        }

        // Readable means it opens. O_NONBLOCK keeps a FIFO from blocking the open.
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (status.kind == .directory ? O_DIRECTORY : 0)
        let descriptor = open(path, flags)
        guard descriptor >= 0 else {
            let error = SystemError.current("open", path: path)
            throw .rejectedChoice(url: url, reason: "it cannot be opened for reading: \(error.reason)")
        }
        defer { close(descriptor) }

        do {
            if importsUnresolvedAliases && facts.isSymlink {
                // The link itself is returned; only the directories above it are resolved.
                let directory = try FilePath.resolve(FilePath.directory(of: path))
                let linkPath = FilePath.join(directory, facts.name)
                let identity = try FileIdentity.of(linkPath, followSymlinks: false)
                return (ChosenFile(path: linkPath, identity: identity, forWriting: false), path)
            }
            let resolved = try FilePath.resolve(path)
            let identity = try FileIdentity.of(descriptor: descriptor, path: resolved)
            return (ChosenFile(path: resolved, identity: identity, forWriting: false), path)
        } catch {
            throw .rejectedChoice(url: url, reason: "it could not be resolved: \(error)")
        }
    }
}
