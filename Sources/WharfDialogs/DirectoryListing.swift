import WharfSystem

/// One page of a directory, as a dialog's file browser shows it.
public struct DirectoryListing: Sendable, Equatable {
    /// The listed directory (absolute, normalised; symlinks on the way are kept as navigated).
    public var directory: FilePath
    /// Where "up" goes; nil at `/`.
    public var parent: FilePath?
    public var entries: [DirectoryEntry]
    /// Pass back to get the next page; nil on the last page.
    public var nextCursor: String?
    /// Whether ``directory`` itself may be chosen, as `choose` would judge it (what a folder
    /// picker's "choose this folder" does); nil for an exporter, which saves into the folder.
    public var folderChoice: FolderChoice?
}

/// Whether an importer may choose the folder it lists.
public enum FolderChoice: Sendable, Equatable {
    case enabled
    /// Why not, in the words a rejected `choose` would use.
    case disabled(reason: String)

    /// Why the folder may not be chosen; nil when it may.
    public var reason: String? {
        if case .disabled(let reason) = self { return reason }
        return nil
    }
}

/// One entry of a listing.
public struct DirectoryEntry: Sendable, Equatable {
    /// The name as the file system holds it: bytes, perhaps not UTF-8.
    public var name: [UInt8]
    public var path: FilePath
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
    /// The user may pick it: decided by exactly the rules `choose` applies (broken links, FIFOs
    /// and devices, hidden files, content types, `urlEnabled`), except readability, which
    /// `choose` learns by opening the file and a listing of 100,000 entries cannot afford to.
    /// Directories in an importer are enabled only in directory pickers, but can always be
    /// browsed.
    public var enabled: Bool
    /// Why the entry is not enabled, in the words a rejected `choose` would use; nil when it is.
    public var disabledReason: String?

    /// The `file:` URL of ``path``: every byte of the name, exactly.
    public var url: String { FileURL.from(path: path) }

    /// The name for people to read: UTF-8 as it is, anything else replaced (U+FFFD). Two names
    /// may read the same here; ``url`` never confuses them.
    public var displayName: String { String(decoding: name, as: UTF8.self) }
}

/// A directory read, judged and sorted once, then served page by page.
struct ListingSnapshot: Sendable {
    var generation: UInt64
    var source: ListingSource
    /// Judged when the folder was read, like its entries.
    var folderChoice: FolderChoice?
    /// In `readdir` order; `order` holds their indices sorted (cheaper than moving the entries).
    var entries: [ListedEntry]
    var order: [Int]

    var count: Int { order.count }
    var directory: FilePath { source.directory }

    func entries(_ range: Range<Int>, rules: SelectionRules) -> [DirectoryEntry] {
        order[range].map { entries[$0].publicEntry(rules: rules) }
    }
}

/// What a listing was read from: a folder, with or without its hidden entries. A cursor into a
/// listing the cache dropped is served by reading the same again.
struct ListingSource: Sendable, Equatable {
    var directory: FilePath
    var showsHidden: Bool
}

struct ListedEntry: Sendable {
    var facts: EntryFacts
    var rejection: EntryRejection?

    func publicEntry(rules: SelectionRules) -> DirectoryEntry {
        DirectoryEntry(
            name: facts.name, path: facts.path, isDirectory: facts.isDirectory, isPackage: facts.isPackage,
            isHidden: facts.isHidden, isSymlink: facts.isSymlink, contentType: facts.contentType,
            size: facts.size, modified: facts.modified, enabled: rejection == nil,
            disabledReason: rejection?.reason(for: facts, rules: rules))
    }
}

enum DirectoryLister {
    /// The default page size, and the most a page may hold.
    static let defaultLimit = 1_000
    static let maximumLimit = 10_000

    /// Reads `source` in one pass (one `readdir`, one `fstatat` per entry), judges every
    /// entry by `rules`, and sorts: directories first, then ``NameOrdering``.
    static func read(
        _ source: ListingSource, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> (entries: [ListedEntry], order: [Int]) {
        let directory = source.directory
        let raw: [DirectoryReader.Entry]
        let handle: FileDescriptor
        do {
            (raw, handle) = try DirectoryReader.read(directory, includeHidden: source.showsHidden)
        } catch {
            throw .cannotList(directory: directory, reason: error.reason)
        }

        var conformance: [String: Bool] = [:]
        var listed: [ListedEntry] = []
        listed.reserveCapacity(raw.count)
        for entry in raw {
            // Read relative to the open directory, only when the name does not decide the type.
            let name = FilePath(unchecked: entry.name)
            let facts = EntryFacts(
                name: entry.name, directory: directory, status: entry.status,
                isSymlink: entry.isSymlink, isBrokenSymlink: entry.isBrokenSymlink,
                browserOptions: rules.browserOptions, types: types,
                readHead: { buffer throws(SystemError) in try FileHead.read(name, in: handle, into: buffer) })
            listed.append(ListedEntry(facts: facts, rejection: rules.rejection(of: facts, types: types, conformance: &conformance)))
        }
        return (listed, sortedOrder(listed))
    }

    /// Whether an importer (or a mover) may choose `directory` itself: the rules `choose`
    /// applies to it (in a file importer a folder is never a document; in a folder picker, and
    /// a mover's, the folder must pass the browser options and `urlEnabled`). Nil for an exporter.
    static func folderChoice(_ directory: FilePath, rules: SelectionRules, types: any ContentTypeOracle) -> FolderChoice? {
        guard rules.kind != .exporter else { return nil }
        do {
            let (facts, _) = try EntryFacts.chosen(directory, browserOptions: rules.browserOptions, types: types)
            return rules.reason(rejecting: facts, types: types).map { .disabled(reason: $0) } ?? .enabled
        } catch {
            return .disabled(reason: error.description)
        }
    }

    /// The indices of `entries` in listing order. The sort runs over flat buffers of encoded
    /// keys, their 8-byte prefixes and the directory flags, so its comparisons touch no strings
    /// and no reference counts; only names equal under folding compare the names themselves.
    static func sortedOrder(_ entries: [ListedEntry]) -> [Int] {
        var keyBytes: [UInt8] = []
        var keyStarts: [Int] = []
        var isDirectory: [Bool] = []
        keyStarts.reserveCapacity(entries.count + 1)
        isDirectory.reserveCapacity(entries.count)
        for entry in entries {
            keyStarts.append(keyBytes.count)
            NameOrdering.appendKey(for: entry.facts.name, to: &keyBytes)
            isDirectory.append(entry.facts.isDirectory)
        }
        keyStarts.append(keyBytes.count)
        var order = Array(entries.indices)
        keyBytes.withUnsafeBufferPointer { bytes in
            keyStarts.withUnsafeBufferPointer { starts in
                let prefixes = (0..<entries.count).map { index in
                    NameOrdering.prefix(UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]))
                }
                prefixes.withUnsafeBufferPointer { prefixes in
                    isDirectory.withUnsafeBufferPointer { isDirectory in
                        order.sort { left, right in
                            if isDirectory[left] != isDirectory[right] { return isDirectory[left] }
                            if prefixes[left] != prefixes[right] { return prefixes[left] < prefixes[right] }
                            let comparison = NameOrdering.compare(
                                UnsafeBufferPointer(rebasing: bytes[starts[left]..<starts[left + 1]]),
                                UnsafeBufferPointer(rebasing: bytes[starts[right]..<starts[right + 1]]))
                            if comparison != 0 { return comparison < 0 }
                            return entries[left].facts.name.lexicographicallyPrecedes(entries[right].facts.name)
                        }
                    }
                }
            }
        }
        return order
    }
}
