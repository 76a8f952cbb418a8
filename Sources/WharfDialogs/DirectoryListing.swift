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

/// A directory's names read and sorted once, then served page by page. Only what the order
/// needs is read up front (the names, and which entries are folders: ``DirectoryReader/Scan``);
/// the rest of an entry (its status, content type and whether it may be chosen) is read when a
/// page holding it is served, so the first page of a huge folder does not wait for every
/// entry's `stat` and type.
struct ListingSnapshot: Sendable {
    var generation: UInt64
    var source: ListingSource
    /// Judged when the folder was read.
    var folderChoice: FolderChoice?
    /// In `readdir` order; `order` holds their indices sorted (cheaper than moving the names).
    var names: DirectoryReader.Scan
    var order: [Int]

    var count: Int { order.count }
    var directory: FilePath { source.directory }
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

    /// Reads `source`'s names in one `readdir` pass (a `stat` only for links and entries of
    /// unknown type) and sorts them: directories first, then ``NameOrdering``. A package is a
    /// leaf unless `enumeratePackages`: its type is its name's, so no `stat` tells it.
    static func read(
        _ source: ListingSource, rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> (names: DirectoryReader.Scan, order: [Int]) {
        var scan: DirectoryReader.Scan
        do {
            scan = try DirectoryReader.scan(source.directory, includeHidden: source.showsHidden)
        } catch {
            throw .cannotList(directory: source.directory, reason: error.reason)
        }
        if !rules.browserOptions.contains(.enumeratePackages) {
            for index in 0..<scan.count where scan.isDirectory[index] {
                let type = types.identify(name: scan.name(index), status: .directory) { _ throws(SystemError) in 0 }
                if types.isPackage(type) { scan.isDirectory[index] = false }
            }
        }
        return (scan, sortedOrder(scan))
    }

    /// The entries `indices` of `names` (a page), each read now: its status, its type (by name,
    /// then its first bytes), and judged by `rules`. An entry gone since the folder was read is
    /// left out. Reads the disk: never under the engine's lock.
    static func describe(
        _ indices: ArraySlice<Int>, of names: DirectoryReader.Scan, in directory: FilePath,
        rules: SelectionRules, types: any ContentTypeOracle
    ) throws(DialogError) -> [DirectoryEntry] {
        guard !indices.isEmpty else { return [] }
        let handle: FileDescriptor
        do {
            handle = try Syscalls.openDirectory(directory)
        } catch {
            throw .cannotList(directory: directory, reason: error.reason)
        }
        var conformance: [String: Bool] = [:]
        var entries: [DirectoryEntry] = []
        entries.reserveCapacity(indices.count)
        for index in indices {
            let name = names.name(index)
            guard let entry = DirectoryReader.describe(name, in: handle) else { continue }
            // Read relative to the open directory, only when the name does not decide the type.
            let relative = FilePath(unchecked: name)
            let facts = EntryFacts(
                name: name, directory: directory, status: entry.status,
                isSymlink: entry.isSymlink, isBrokenSymlink: entry.isBrokenSymlink,
                browserOptions: rules.browserOptions, types: types,
                readHead: { buffer throws(SystemError) in try FileHead.read(relative, in: handle, into: buffer) })
            let listed = ListedEntry(facts: facts, rejection: rules.rejection(of: facts, types: types, conformance: &conformance))
            entries.append(listed.publicEntry(rules: rules))
        }
        return entries
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

    /// The indices of `names` in listing order. The sort runs over flat buffers of encoded
    /// keys, their 8-byte prefixes and the directory flags, so its comparisons touch no strings
    /// and no reference counts; only names equal under folding compare the names themselves.
    static func sortedOrder(_ names: DirectoryReader.Scan) -> [Int] {
        let count = names.count
        var keyBytes: [UInt8] = []
        var keyStarts: [Int] = []
        keyStarts.reserveCapacity(count + 1)
        keyBytes.reserveCapacity(names.bytes.count + names.bytes.count / 4)
        names.bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<count {
                keyStarts.append(keyBytes.count)
                NameOrdering.appendKey(for: UnsafeBufferPointer(rebasing: bytes[names.starts[index]..<names.starts[index + 1]]), to: &keyBytes)
            }
        }
        keyStarts.append(keyBytes.count)
        var order = Array(0..<count)
        keyBytes.withUnsafeBufferPointer { bytes in
            keyStarts.withUnsafeBufferPointer { starts in
                let prefixes = (0..<count).map { index in
                    NameOrdering.prefix(UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]))
                }
                prefixes.withUnsafeBufferPointer { prefixes in
                    names.isDirectory.withUnsafeBufferPointer { isDirectory in
                        names.bytes.withUnsafeBufferPointer { raw in
                            names.starts.withUnsafeBufferPointer { rawStarts in
                                order.sort { left, right in
                                    if isDirectory[left] != isDirectory[right] { return isDirectory[left] }
                                    if prefixes[left] != prefixes[right] { return prefixes[left] < prefixes[right] }
                                    let comparison = NameOrdering.compare(
                                        UnsafeBufferPointer(rebasing: bytes[starts[left]..<starts[left + 1]]),
                                        UnsafeBufferPointer(rebasing: bytes[starts[right]..<starts[right + 1]]))
                                    if comparison != 0 { return comparison < 0 }
                                    return UnsafeBufferPointer(rebasing: raw[rawStarts[left]..<rawStarts[left + 1]])
                                        .lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: raw[rawStarts[right]..<rawStarts[right + 1]]))
                                }
                            }
                        }
                    }
                }
            }
        }
        return order
    }
}
