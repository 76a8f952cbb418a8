import WharfSystem

/// What the engine knows about one directory entry or chosen file: the input of the
/// `enabled` rule, computed the same way for listings and for choices so the two never disagree.
struct EntryFacts: Sendable {
    /// The name, as the file system holds it.
    var name: [UInt8]
    /// The directory holding the entry; the full path is only built when something asks for
    /// it (a page of a listing, a `pathMatches` predicate), which most of 100,000 entries never do.
    var directory: FilePath
    /// The path as chosen, when it is not simply `directory` + `name` (the root, for one).
    var explicitPath: FilePath?
    /// The entry can be browsed into: a directory (following a symlink) that is not a package
    /// shown as a leaf.
    var isDirectory: Bool
    var isPackage: Bool
    var isHidden: Bool
    var isSymlink: Bool
    var isBrokenSymlink: Bool
    /// A FIFO, socket or device: never a document.
    var isSpecial: Bool
    /// What `stat` says this is when it is special (`a FIFO`, …), for the rejection message.
    var specialKind: String
    var contentType: String
    var size: Int64
    var modified: Double

    var path: FilePath { explicitPath ?? directory.appending(name) }

    /// - Parameters:
    ///   - status: of the target when the entry is a symlink that can be followed.
    ///   - readHead: reads the file's first bytes, for identification when the name does not
    ///     decide its type.
    init(
        name: [UInt8], directory: FilePath, explicitPath: FilePath? = nil, status: FileStatus, isSymlink: Bool,
        isBrokenSymlink: Bool, browserOptions: BrowserOptions, types: any ContentTypeOracle,
        readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int
    ) {
        let onDisk = status.kind == .directory && !isBrokenSymlink
        let type = types.identify(name: name, status: status, readHead: readHead)
        let package = onDisk && types.isPackage(type)
        self.name = name
        self.directory = directory
        self.explicitPath = explicitPath
        self.isDirectory = onDisk && (!package || browserOptions.contains(.enumeratePackages))
        self.isPackage = package
        self.isHidden = name.first == UInt8(ascii: ".")
        self.isSymlink = isSymlink
        self.isBrokenSymlink = isBrokenSymlink
        self.isSpecial = status.isSpecial && !isBrokenSymlink
        self.specialKind = status.specialKindDescription
        self.contentType = type
        self.size = status.size
        self.modified = status.modified
    }
}

extension EntryFacts {
    /// The facts of a file about to be saved at `destination`, judged by its name and path
    /// alone (what is there now, if anything, is about to be replaced): a regular file, empty,
    /// of the type its name gives, hidden when its name starts with a dot.
    init(destination: FilePath, types: any ContentTypeOracle) {
        let name = destination.lastComponent
        self.name = name
        directory = destination.directory
        explicitPath = nil
        isDirectory = false
        isPackage = false
        isHidden = name.first == UInt8(ascii: ".")
        isSymlink = false
        isBrokenSymlink = false
        isSpecial = false
        specialKind = ""
        contentType = types.type(forFilename: name)
        size = 0
        modified = 0
    }

    /// What `lstat` and `stat` say of the file at `path`: its status (a symbolic link
    /// followed; when it leads nowhere, the link's own), whether it is a link, and whether that
    /// link is broken. Throws when `path` itself cannot be examined.
    static func examine(_ path: FilePath) throws(SystemError) -> (status: FileStatus, isSymlink: Bool, isBroken: Bool) {
        let link = try FileStatus.ofLink(path)
        guard link.kind == .symlink else { return (link, false, false) }
        if let target = try? FileStatus.of(path) { return (target, true, false) }
        return (link, true, true)
    }

    /// The facts of the file at `path` as a choice judges it, with its status (see
    /// ``examine(_:)``). Its first bytes are read from `path`, only if its name does not
    /// decide its type. Throws when `path` itself cannot be examined.
    static func chosen(
        _ path: FilePath, browserOptions: BrowserOptions, types: any ContentTypeOracle
    ) throws(SystemError) -> (EntryFacts, FileStatus) {
        let examined = try examine(path)
        let facts = EntryFacts(chosen: path, examined, browserOptions: browserOptions, types: types) { buffer throws(SystemError) in
            try FileHead.read(path, into: buffer)
        }
        return (facts, examined.status)
    }

    /// The facts of the file at `path`, `examined` (``examine(_:)``); `readHead` reads its
    /// first bytes (a choice reads them from the file it opened).
    init(
        chosen path: FilePath, _ examined: (status: FileStatus, isSymlink: Bool, isBroken: Bool),
        browserOptions: BrowserOptions, types: any ContentTypeOracle,
        readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int
    ) {
        self.init(
            name: path.lastComponent, directory: path.directory, explicitPath: path,
            status: examined.status, isSymlink: examined.isSymlink, isBrokenSymlink: examined.isBroken,
            browserOptions: browserOptions, types: types,
            readHead: readHead)
    }
}

/// Which entries a dialog lets the user pick: the allowed (importer) or offered (exporter)
/// content types and `urlEnabled`. Being hidden is not among them: `includeHiddenFiles` only
/// says whether hidden files are shown at first (SwiftUI: "Displays the files that are hidden by
/// default"); a person who reveals them, as every desktop's dialog lets them, may pick one.
struct SelectionRules: Sendable {
    var kind: DialogKind
    /// Importer: the allowed types. Exporter: the offered types (existing files of these types
    /// may be picked to be replaced).
    var contentTypes: [String]
    var browserOptions: BrowserOptions
    var urlEnabled: URLPredicate?
    /// The extensions (lowercased bytes) of those types that stand for a bare extension
    /// (``ContentTypeOracle/extensionOnlyType(_:)``): a file with one of them is allowed by
    /// its name, as `:WharfOpen zzqq` expects of the files ending in `.zzqq`.
    var extensions: [[UInt8]]
    /// The named filter in force (``DialogFilter``), if the dialog has filters.
    var filter: FilterInForce?

    /// Which of a dialog's named filters a pick must match.
    enum FilterInForce: Sendable {
        /// The one the person selected.
        case selected(DialogFilter)
        /// Any of them: for a presenter that cannot say which one was selected (zenity).
        case anyOf([DialogFilter])

        func holds(for entry: EntryFacts, types: any ContentTypeOracle) -> Bool {
            switch self {
            case .selected(let filter): filter.predicate.evaluate(entry, types: types)
            case .anyOf(let filters): filters.contains { $0.predicate.evaluate(entry, types: types) }
            }
        }
    }

    init(kind: DialogKind, contentTypes: [String], browserOptions: BrowserOptions, urlEnabled: URLPredicate?,
         types: any ContentTypeOracle) {
        self.kind = kind
        self.contentTypes = contentTypes
        self.browserOptions = browserOptions
        self.urlEnabled = urlEnabled
        extensions = contentTypes.compactMap { types.extensionOnlyType($0).map { Array($0.utf8) } }
    }

    /// Why the entry cannot be picked, or nil when it can. `conformance` memoises type checks
    /// across the entries of one listing, where a few types repeat many thousand times.
    func rejection(
        of entry: EntryFacts, types: any ContentTypeOracle, conformance: inout [String: Bool]
    ) -> EntryRejection? {
        if entry.isBrokenSymlink { return .brokenSymlink }
        if entry.isSpecial { return .special }
        let typeAllowed: Bool
        if kind == .exporter && entry.isDirectory {
            typeAllowed = true  // a destination directory
        } else if let known = conformance[entry.contentType] {
            typeAllowed = known
        } else {
            typeAllowed = contentTypes.contains { types.conforms(entry.contentType, to: $0) }
            conformance[entry.contentType] = typeAllowed
        }
        if !typeAllowed && !(hasAllowedExtension(entry.name) && !entry.isDirectory) { return .contentType }
        if let predicate = urlEnabled, !predicate.evaluate(entry, types: types) { return .urlEnabled }
        // An exporter's folders are where to save, not files the filter is about.
        if let filter, !(kind == .exporter && entry.isDirectory), !filter.holds(for: entry, types: types) {
            return .filter
        }
        return nil
    }

    /// The name ends in one of ``extensions`` (compared in lowercase, as extensions are).
    private func hasAllowedExtension(_ name: [UInt8]) -> Bool {
        guard !extensions.isEmpty, let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return false }
        let suffix = name[name.index(after: dot)...].map(lowercaseASCII)
        return extensions.contains(suffix)
    }

    /// Why the entry cannot be picked, in words, or nil when it can.
    func reason(rejecting entry: EntryFacts, types: any ContentTypeOracle) -> String? {
        var memo: [String: Bool] = [:]
        return rejection(of: entry, types: types, conformance: &memo)?.reason(for: entry, rules: self)
    }
}

/// Which of a dialog's rules keeps an entry from being picked. A listing keeps this byte per
/// entry and puts it in words only for the entries of the page it serves.
enum EntryRejection: UInt8, Sendable {
    case brokenSymlink, special, contentType, urlEnabled, filter

    /// The sentence a rejected `dialog/choose` answers with, and a listing shows as an entry's
    /// `disabledReason`.
    func reason(for entry: EntryFacts, rules: SelectionRules) -> String {
        switch self {
        case .brokenSymlink:
            return "it is a symbolic link to something that does not exist"
        case .special:
            return "it is \(entry.specialKind), which is never a document"
        case .contentType:
            let what = entry.isDirectory ? "a directory" : "of type \(entry.contentType)"
            return "it is \(what), and this dialog takes only \(rules.contentTypes.joined(separator: ", "))"
        case .urlEnabled:
            return "the dialog's urlEnabled predicate does not enable it"
        case .filter:
            switch rules.filter {
            case .selected(let filter)?: return "it does not match the filter \u{201C}\(filter.name)\u{201D}"
            default: return "it matches none of the dialog's filters"
            }
        }
    }
}
