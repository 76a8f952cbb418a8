import WharfSystem

/// Finds a granted or bookmarked file again: at its path, or — when it was renamed or moved —
/// by its identity near where it was.
enum FileLocator {
    /// Where the file is now.
    enum Location: Equatable {
        /// The very file, where it was.
        case same(path: FilePath)
        /// Another file of the same kind now stands at the path (an editor's atomic save: write a
        /// temporary, rename it over the original).
        case replaced(path: FilePath, fingerprint: Fingerprint)
        /// The file itself, found by identity under another name nearby.
        case moved(path: FilePath, fingerprint: Fingerprint)
        /// Neither the file nor a stand-in could be found.
        case gone

        var path: FilePath? {
            switch self {
            case .same(let path), .replaced(let path, _), .moved(let path, _): path
            case .gone: nil
            }
        }

        var isStale: Bool {
            switch self {
            case .same, .gone: false
            case .replaced, .moved: true
            }
        }
    }

    /// The most directory entries one search looks at, and the most sibling directories it
    /// enters: a bookmark resolution must stay quick even next to a huge directory.
    static let searchEntryLimit = 50_000
    static let searchDirectoryLimit = 1_000

    /// Locates what was recorded as `fingerprint` at `path`. Fingerprints are taken of what `lstat`
    /// showed not to be a symbolic link, so no link is ever followed to another file.
    ///
    /// The order matters. A regular file standing at the path wins even when its identity
    /// differs, because that is what an editor's save looks like — and some editors (Emacs by
    /// default) keep the *old* inode as a `name~` backup next to it, which a search by identity
    /// would wrongly follow. Only when the path is empty, or holds something of another kind (a
    /// symbolic link swapped in, a directory), is the file searched for by identity in its
    /// directory and the directories beside it. A directory whose identity changed is searched
    /// for first (directories are renamed, not saved), then accepted at its path as the fallback
    /// for file systems whose ids do not survive a reboot.
    ///
    /// A stand-in is accepted only when the path reaches it through no symbolic link at all (the
    /// path was recorded as a real path): a folder on the way swapped for a link leads the same
    /// bytes to another folder's file of the same name, which nobody saved over the document.
    /// The very file (same identity) is accepted whichever way the path reaches it.
    static func locate(path: FilePath, fingerprint: Fingerprint, isDirectory: Bool) -> Location {
        let status = try? FileStatus.ofLink(path)
        let wanted: FileStatus.Kind = isDirectory ? .directory : .regular
        if let status, status.kind == wanted, let current = Fingerprint.of(path: path) {
            if current.matches(fingerprint) { return .same(path: path) }
            if !isDirectory, let standing = standIn(at: path, kind: wanted) { return .replaced(path: path, fingerprint: standing) }
        }
        if let found = search(near: path, for: fingerprint, kind: wanted) {
            return .moved(path: found.path, fingerprint: found.fingerprint)
        }
        if let status, status.kind == .directory, isDirectory, let standing = standIn(at: path, kind: .directory) {
            return .replaced(path: path, fingerprint: standing)
        }
        return .gone
    }

    /// The fingerprint of what stands at `path` when it is of `kind` and reached from `/` one
    /// component at a time without following a symbolic link anywhere (the walk a granted
    /// folder's contents get), taken from the very file the walk opened; nil otherwise.
    private static func standIn(at path: FilePath, kind: FileStatus.Kind) -> Fingerprint? {
        guard path.isAbsolute, path != .root, let root = Fingerprint.of(path: .root),
              let opened = try? GrantedFileOpener.openAndDescribe(target: path, anchor: .root, granted: root, mode: .path),
              opened.status.kind == kind
        else { return nil }
        return opened.fingerprint
    }

    /// Looks for `fingerprint` in the directory of `path`, then in that directory's siblings
    /// (which also covers the directory itself having been renamed). Never follows symbolic links.
    static func search(near path: FilePath, for fingerprint: Fingerprint,
                       kind: FileStatus.Kind) -> (path: FilePath, fingerprint: Fingerprint)? {
        let directory = path.directory
        var budget = searchEntryLimit
        if let found = scan(directory, for: fingerprint, kind: kind, budget: &budget) { return found }
        guard directory != .root else { return nil }
        let parent = directory.directory
        let ownName = directory.lastComponent
        guard let siblings = try? DirectoryEntries.names(in: parent, limit: searchDirectoryLimit) else { return nil }
        for name in siblings where name != ownName && budget > 0 {
            let sibling = parent.appending(name)
            guard (try? FileStatus.ofLink(sibling))?.kind == .directory else { continue }
            if let found = scan(sibling, for: fingerprint, kind: kind, budget: &budget) { return found }
        }
        return nil
    }

    private static func scan(_ directory: FilePath, for fingerprint: Fingerprint, kind: FileStatus.Kind,
                             budget: inout Int) -> (path: FilePath, fingerprint: Fingerprint)? {
        guard budget > 0, let names = try? DirectoryEntries.names(in: directory, limit: budget) else { return nil }
        budget -= names.count
        for name in names {
            let candidate = directory.appending(name)
            // The inode is compared first: one lstat per entry, the rest only on a hit.
            guard let status = try? FileStatus.ofLink(candidate), status.inode == fingerprint.identity.inode,
                  status.kind == kind,
                  let found = Fingerprint.of(path: candidate), found.matches(fingerprint)
            else { continue }
            return (candidate, found)
        }
        return nil
    }
}
