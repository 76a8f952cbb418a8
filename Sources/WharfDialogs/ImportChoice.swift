import Glibc
import WharfSystem

/// Validates the files a user picked in an importer, the way a real dialog would not let them
/// be confirmed: each must exist, be enabled by the dialog's rules (exactly as the listing
/// judged it), and open for reading; one unless multiple selection is on.
///
/// Symlinks are resolved here, once; the identity recorded is that of the file actually
/// opened, so the access layer can later tell if the path was swapped.
struct ImportChoice: Sendable {
    /// The files, in the order chosen (duplicates dropped: the same bytes once).
    var files: [ChosenFile]
    /// The first file's path as chosen (normalised, not resolved): where the user was.
    var firstChosenPath: FilePath

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
        var seen = Set<FilePath>()
        var firstChosenPath = FilePath.root
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
    ) throws(DialogError) -> (ChosenFile, FilePath) {
        guard let raw = FileURL.pathOrURL(url) else {
            throw .rejectedChoice(url: url, reason: "it is neither an absolute path nor a file: URL")
        }
        let path = raw.normalized
        let facts: EntryFacts
        let status: FileStatus
        do {
            (facts, status) = try EntryFacts.chosen(path, browserOptions: rules.browserOptions, types: types)
        } catch {
            throw .rejectedChoice(url: url, reason: error.code == ENOENT ? "it does not exist" : error.description)
        }
        if let reason = rules.reason(rejecting: facts, types: types) {
            throw .rejectedChoice(url: url, reason: reason)
        }

        // Readable means it opens. O_NONBLOCK keeps a FIFO swapped in meanwhile from blocking
        // the open; the identity taken from this descriptor is what is granted.
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (status.kind == .directory ? O_DIRECTORY : 0))
        } catch {
            throw .rejectedChoice(url: url, reason: "it cannot be opened for reading: \(error.reason)")
        }

        if importsUnresolvedAliases && facts.isSymlink {
            // The link itself is returned; only the directories above it are resolved.
            let linkPath = try resolving(url) { () throws(SystemError) in try path.directory.resolved().appending(path.lastComponent) }
            let link = try resolving(url) { () throws(SystemError) in
                try ChosenFile.unfollowed(at: linkPath, forWriting: false, isSymlink: true)
            }
            return (link, path)
        }
        // Everything recorded below is read from the descriptor: the file actually opened.
        let opened = try resolving(url) { () throws(SystemError) in try file.status() }
        guard !opened.isSpecial else {
            throw .rejectedChoice(url: url, reason: "it is \(opened.specialKindDescription), which is never a document")
        }
        let resolved = try resolving(url) { () throws(SystemError) in try file.resolvedPath(status: opened) }
        let identity = try resolving(url) { () throws(SystemError) in try file.identity(status: opened) }
        let chosen = ChosenFile(path: resolved, identity: identity, birth: file.birth(),
                                isDirectory: opened.kind == .directory, forWriting: false)
        return (chosen, path)
    }

    /// A system call on the way to the chosen file failed: the choice is rejected, saying why.
    private static func resolving<T>(_ url: String, _ step: () throws(SystemError) -> T) throws(DialogError) -> T {
        do { return try step() } catch { throw .rejectedChoice(url: url, reason: "it could not be resolved: \(error)") }
    }
}
