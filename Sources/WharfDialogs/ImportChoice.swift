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
    /// With any of the dialog's filters in force (``SelectionRules/FilterInForce/anyOf(_:)``):
    /// the first filter every chosen file matches, which the ending reports as the one in force.
    var matchedFilter: Int?

    static func validate(
        urls: [String], allowsMultipleSelection: Bool, importsUnresolvedAliases: Bool,
        rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> ImportChoice {
        guard !urls.isEmpty else {
            throw .invalidArgument(field: "urls", reason: "must name at least one file")
        }
        if !allowsMultipleSelection && urls.count > 1 {
            throw .rejectedChoice(url: try path(urls[1]).url, reason: "this dialog takes a single file, and \(urls.count) were chosen")
        }
        var files: [ChosenFile] = []
        var seen = Set<FilePath>()
        var firstChosenPath = FilePath.root
        var matching: [Int]?
        for (index, url) in urls.enumerated() {
            let (file, chosenPath, matches) = try validate(
                url: url, importsUnresolvedAliases: importsUnresolvedAliases, rules: rules, types: types)
            if index == 0 { firstChosenPath = chosenPath }
            if seen.insert(file.path).inserted { files.append(file) }
            if let matches {
                let remaining = matching.map { $0.filter(matches.contains) } ?? matches
                guard !remaining.isEmpty else {
                    throw .rejectedChoice(url: file.url, reason: "the files chosen do not all match one of the dialog's filters")
                }
                matching = remaining
            }
        }
        return ImportChoice(files: files, firstChosenPath: firstChosenPath, matchedFilter: matching?.first)
    }

    private static func validate(
        url: String, importsUnresolvedAliases: Bool, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> (ChosenFile, FilePath, matches: [Int]?) {
        let path = try path(url)
        // What an error names: the file as Wharf names it (normalised, percent-encoded), not
        // the client's spelling of it.
        let url = path.url
        let examined: (status: FileStatus, isSymlink: Bool, isBroken: Bool)
        do {
            examined = try EntryFacts.examine(path)
        } catch {
            throw .rejectedChoice(url: url, reason: error.code == ENOENT ? "it does not exist" : error.description)
        }
        let status = examined.status

        // Readable means it opens; and it is opened before it is judged, so that what is judged
        // (its kind, the first bytes that may decide its type) and what is granted are one
        // file: a path swapped meanwhile, for a link to a folder say, is never granted in place
        // of the file judged. O_NONBLOCK keeps a FIFO swapped in meanwhile from blocking the
        // open. Broken links and special files are not opened: the rules refuse them. A path
        // with no link on its way opens as itself, already resolved (most picks: it saves
        // asking /proc where the file is and checking the answer).
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (status.kind == .directory ? O_DIRECTORY : 0)
        let direct = examined.isBroken || status.isSpecial || examined.isSymlink ? nil : FileDescriptor.openWithoutSymlinks(path, flags)
        let opening: Result<FileDescriptor, SystemError>? = examined.isBroken || status.isSpecial ? nil : Result { () throws(SystemError) in
            if let direct { return direct }
            return try FileDescriptor.open(path, flags)
        }
        let file = try? opening?.get()
        var opened = status
        if let file {
            opened = try resolving(url) { () throws(SystemError) in try file.status() }
            guard opened.kind == status.kind, opened.device == status.device, opened.inode == status.inode else {
                throw .rejectedChoice(url: url, reason: "another file took its place while it was being chosen")
            }
        }
        let facts = EntryFacts(chosen: path, examined, browserOptions: rules.browserOptions, types: types) { buffer throws(SystemError) in
            switch opening {
            case .success(let file)?: return try file.read(filling: buffer)
            case .failure(let error)?: throw error
            case nil: throw SystemError(code: EBADF, operation: "open", path: path)
            }
        }
        if let reason = rules.reason(rejecting: facts, types: types) {
            throw .rejectedChoice(url: url, reason: reason)
        }
        guard let file else {
            var cause = "it is not a file"
            if case .failure(let error)? = opening { cause = error.reason }
            throw .rejectedChoice(url: url, reason: "it cannot be opened for reading: \(cause)")
        }

        if importsUnresolvedAliases && facts.isSymlink {
            // The link itself is returned; only the directories above it are resolved.
            let linkPath = try resolving(url) { () throws(SystemError) in try path.directory.resolved().appending(path.lastComponent) }
            let link = try resolving(url) { () throws(SystemError) in
                try ChosenFile.unfollowed(at: linkPath, forWriting: false, isSymlink: true)
            }
            return (link, path, matchingFilters(facts, rules: rules, types: types))
        }
        // Everything recorded below is read from the descriptor: the file actually opened. The
        // URL returned must name the very file granted: one deleted or moved away meanwhile
        // has no path.
        let resolved: FilePath
        if direct != nil {
            resolved = path
        } else {
            guard let there = try resolving(url, { () throws(SystemError) in try file.resolvedPath(status: opened) }) else {
                throw .rejectedChoice(url: url, reason: "it was moved or deleted while it was being chosen")
            }
            resolved = there
        }
        // A followed link gives the app the file it leads to, so that file must pass the rules
        // under its own name too (type, urlEnabled): judged by the link's name alone,
        // 'notes.txt' leading to 'photo.png' gave a plain-text importer a PNG. Its head is read
        // from the start of the descriptor opened above, whatever the first judgement read.
        var judged = facts
        if facts.isSymlink {
            let target = EntryFacts(chosen: resolved, (opened, false, false), browserOptions: rules.browserOptions,
                                    types: types) { buffer throws(SystemError) in
                let head = try file.read(at: 0, length: buffer.count)
                buffer.copyBytes(from: head)
                return head.count
            }
            if let reason = rules.reason(rejecting: target, types: types) {
                throw .rejectedChoice(url: url, reason: "it leads to \(resolved): \(reason)")
            }
            judged = target
        }
        let identity = try resolving(url) { () throws(SystemError) in try file.identity(status: opened) }
        let chosen = ChosenFile(path: resolved, identity: identity, birth: file.birth(),
                                isDirectory: opened.kind == .directory, forWriting: false)
        return (chosen, path, matchingFilters(judged, rules: rules, types: types))
    }

    /// The indices of the filters `facts` matches, when any of them is in force; nil otherwise.
    private static func matchingFilters(_ facts: EntryFacts, rules: SelectionRules, types: any ContentTypeOracle) -> [Int]? {
        guard case .anyOf(let filters)? = rules.filter else { return nil }
        return filters.indices.filter { filters[$0].predicate.evaluate(facts, types: types) }
    }

    /// The file `text` names, normalised; text that names none is refused saying so.
    static func path(_ text: String) throws(DialogError) -> FilePath {
        guard let raw = FileURL.pathOrURL(text) else { throw .notAFileURL(text) }
        return raw.normalized
    }

    /// A system call on the way to the chosen file failed: the choice is rejected, saying why.
    private static func resolving<T>(_ url: String, _ step: () throws(SystemError) -> T) throws(DialogError) -> T {
        do { return try step() } catch { throw .rejectedChoice(url: url, reason: "it could not be resolved: \(error)") }
    }
}
