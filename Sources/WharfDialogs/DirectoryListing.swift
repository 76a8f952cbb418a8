import WharfSystem

/// One page of a directory, as a dialog's file browser shows it.
public struct DirectoryListing: Sendable, Equatable {
    /// The listed directory (absolute, normalised; symlinks on the way are kept as navigated).
    public var directory: String
    /// Where "up" goes; nil at `/`.
    public var parent: String?
    public var entries: [DirectoryEntry]
    /// Pass back to get the next page; nil on the last page.
    public var nextCursor: String?
}

/// One entry of a listing.
public struct DirectoryEntry: Sendable, Equatable {
    public var name: String
    public var path: String
    /// The browser can open it: a directory, or a symlink to one, that is not a package shown as
    /// a single file. Packages are leaves (`isDirectory` false, `isPackage` true) unless the
    /// dialog's browser options say `enumeratePackages`.
    public var isDirectory: Bool
    public var isPackage: Bool
    /// The name starts with `.`; such entries are listed only with `includeHiddenFiles`.
    public var isHidden: Bool
    /// The entry is a symlink; the other fields describe its target (a broken link: the link
    /// itself, and it is never enabled).
    public var isSymlink: Bool
    /// Identified by name, as ``DialogEngine/choose(client:id:urls:)`` identifies it.
    public var contentType: String
    public var size: Int64
    /// Seconds since the epoch.
    public var modified: Double
    /// The user may pick it: decided by exactly the rules `choose` applies (broken links, hidden
    /// files, content types, `urlEnabled`), except readability, which `choose` learns by opening
    /// the file and a listing of 100,000 entries cannot afford to. Directories in an importer
    /// are enabled only in directory pickers, but can always be browsed.
    public var enabled: Bool

    /// The `file:` URL of ``path``.
    public var url: String { FileURL.from(path: path) }
}

/// A directory read, judged and sorted once, then served page by page.
struct ListingSnapshot: Sendable {
    var generation: UInt64
    var directory: String
    var entries: [ListedEntry]
}

struct ListedEntry: Sendable {
    var facts: EntryFacts
    var enabled: Bool

    var publicEntry: DirectoryEntry {
        DirectoryEntry(
            name: facts.name, path: facts.path, isDirectory: facts.isDirectory, isPackage: facts.isPackage,
            isHidden: facts.isHidden, isSymlink: facts.isSymlink, contentType: facts.contentType,
            size: facts.size, modified: facts.modified, enabled: enabled)
    }
}

enum DirectoryLister {
    /// The default page size, and the most a page may hold.
    static let defaultLimit = 1_000
    static let maximumLimit = 10_000

    /// Reads `directory` in one pass (one `readdir`, one `fstatat` per entry), judges every
    /// entry by `rules`, and sorts: directories first, then ``NameOrdering``.
    static func read(
        _ directory: String, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> [ListedEntry] {
        let raw: [DirectoryReader.Entry]
        do {
            raw = try DirectoryReader.read(directory, includeHidden: rules.browserOptions.contains(.includeHiddenFiles))
        } catch {
            throw .cannotList(directory: directory, reason: error.reason)
        }

        var conformance: [String: Bool] = [:]
        var listed: [ListedEntry] = []
        listed.reserveCapacity(raw.count)
        for entry in raw {
            let facts = EntryFacts(
                name: entry.name, path: FilePath.join(directory, entry.name), status: entry.status,
                isSymlink: entry.isSymlink, isBrokenSymlink: entry.isBrokenSymlink,
                browserOptions: rules.browserOptions, types: types)
            let enabled = rules.rejection(of: facts, types: types, conformance: &conformance) == nil
            listed.append(ListedEntry(facts: facts, enabled: enabled))
        }
        return sorted(listed)
    }

    /// Sorts through an index array over one flat buffer of folded keys, so the comparisons
    /// of a 100,000-entry sort touch no reference counts.
    static func sorted(_ entries: [ListedEntry]) -> [ListedEntry] {
        var keyBytes: [UInt8] = []
        var keyRanges: [(start: Int, count: Int)] = []
        keyRanges.reserveCapacity(entries.count)
        for entry in entries {
            let key = NameOrdering.key(for: entry.facts.name)
            keyRanges.append((keyBytes.count, key.count))
            keyBytes.append(contentsOf: key)
        }
        var order = Array(entries.indices)
        keyBytes.withUnsafeBufferPointer { bytes in
            entries.withUnsafeBufferPointer { entries in
                keyRanges.withUnsafeBufferPointer { ranges in
                    order.sort { left, right in
                        let a = entries[left].facts
                        let b = entries[right].facts
                        if a.isDirectory != b.isDirectory { return a.isDirectory }
                        let x = UnsafeBufferPointer(rebasing: bytes[ranges[left].start..<ranges[left].start + ranges[left].count])
                        let y = UnsafeBufferPointer(rebasing: bytes[ranges[right].start..<ranges[right].start + ranges[right].count])
                        let comparison = NameOrdering.compare(x, y)
                        if comparison != 0 { return comparison < 0 }
                        return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
                    }
                }
            }
        }
        return order.map { entries[$0] }
    }
}
