import WharfFileWriting
import WharfSystem

/// An exporter's documents with SwiftUI's content-type rules applied: which types the user is
/// offered, which type each document is written as, and under which name.
struct ExporterPlan: Sendable {
    var documents: [ExportDocument]
    /// The types the user may pick from, in the order shown.
    var offered: [String]
    /// The type that applies when the user picks none: the requested `contentType` for the
    /// `FileDocument` form (each document then resolves it by the SwiftUI rule), the first
    /// offered type for the `WritableDocument` form.
    var defaultChoice: String
    /// Each document's name before the extension rule: its own, the request's default, or "Untitled".
    var baseNames: [String]
    /// Only the destination is chosen; nothing is written (``ExporterRequest/destinationOnly``).
    var destinationOnly: Bool
    /// What each destination must satisfy, judged by its name and path: a destination-only
    /// exporter's `urlEnabled`. The client writes the file itself, in a type Wharf never sees,
    /// so the name is what its rule can hold (a portal `SaveFile`'s filter). An exporter that
    /// writes names the file after the type the person picked, and has no such rule.
    var destinationRule: URLPredicate?
    /// The person chooses a folder, not a file's name (``ExporterRequest/savesIntoFolder``).
    var savesIntoFolder: Bool

    init(_ request: ExporterRequest) {
        documents = request.documents
        destinationOnly = request.destinationOnly
        savesIntoFolder = request.savesIntoFolder || request.documents.count > 1
        destinationRule = request.destinationOnly ? request.options.urlEnabled : nil
        baseNames = request.documents.map { $0.filename ?? request.defaultFilename ?? "Untitled" }
        switch request.contentTypes {
        case .contentType(let type):
            defaultChoice = type
            offered = Self.unique(request.documents.map { Self.resolve(type, for: $0) })
        case .contentTypes(let types):
            // `contentTypes` defaults to the documents' `writableContentTypes`.
            offered = types.isEmpty ? Self.unique(request.documents.flatMap(\.writableContentTypes)) : Self.unique(types)
            defaultChoice = offered[0]
        }
    }

    /// SwiftUI's rule: the chosen type if the document can be written as it, otherwise the
    /// document's first writable type (all of which were checked to be known).
    static func resolve(_ chosen: String, for document: ExportDocument) -> String {
        canWrite(document, as: chosen) ? chosen : document.writableContentTypes[0]
    }

    /// Whether `type` is one of the document's writable types; identifiers compare
    /// case-insensitively (ASCII), as everywhere in the protocol.
    static func canWrite(_ document: ExportDocument, as type: String) -> Bool {
        document.writableContentTypes.contains { $0.equalsIgnoringASCIICase(type) }
    }

    func resolvedTypes(choosing chosen: String) -> [String] {
        documents.map { Self.resolve(chosen, for: $0) }
    }

    /// The name each document is saved under when `chosen` is picked: its base name plus the
    /// preferred extension of its resolved type, unless the name already carries an extension
    /// of that type. Names that collide get " 2", " 3", … before their extension, so several
    /// untitled documents do not overwrite each other. Names collide when their bytes are
    /// equal, as the file system sees them: `String`'s `==` would take `café` spelt with a
    /// combining accent for `café` spelt with `é`, two different files.
    func filenames(choosing chosen: String, types: any ContentTypeOracle) -> [String] {
        var used = Set<[UInt8]>()
        var names: [String] = []
        for (index, type) in resolvedTypes(choosing: chosen).enumerated() {
            let name = Self.filename(baseNames[index], type: type, types: types)
            var candidate = name
            var counter = 2
            while used.contains(Array(candidate.utf8)) {
                candidate = Self.numbered(name, counter)
                counter += 1
            }
            used.insert(Array(candidate.utf8))
            names.append(candidate)
        }
        return names
    }

    /// `base` with the preferred extension of `type`, not doubled: `notes` → `notes.txt`,
    /// `notes.txt` → `notes.txt`, `notes.TXT` → `notes.TXT`, `readme.md` stays as it is for
    /// plain text because Markdown is plain text.
    static func filename(_ base: String, type: String, types: any ContentTypeOracle) -> String {
        guard let preferred = types.preferredFilenameExtension(of: type), !preferred.isEmpty else { return base }
        if let dot = base.lastIndex(of: "."), dot != base.startIndex {
            let existing = base[base.index(after: dot)...]
            if existing.lowercased() == preferred.lowercased() { return base }
            if !existing.isEmpty && types.conforms(types.type(forFilename: Array(base.utf8)), to: type) {
                return base
            }
        }
        return base + "." + preferred
    }

    private static func numbered(_ name: String, _ counter: Int) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot]) \(counter)\(name[dot...])"
        }
        return "\(name) \(counter)"
    }

    /// The types in order, each once however it is spelt (the first spelling is kept).
    private static func unique(_ types: [String]) -> [String] {
        var seen = Set<[UInt8]>()
        return types.filter { seen.insert($0.utf8.map(lowercaseASCII)).inserted }
    }
}

/// What `save` decided: where each document goes and as what. Built outside the engine's lock
/// (it looks at the disk), committed under it.
struct ExportJob: Sendable {
    var destinations: [FilePath]
    var contentTypes: [String]
    /// Each document's bytes; nil until a lazy document's snapshot arrives.
    var sources: [ExportSource?]
    var overwrite: Bool
    /// The directory the files go into (remembered under the dialog's customization id).
    var directory: FilePath

    var pendingSnapshots: [Int] { sources.indices.filter { sources[$0] == nil } }

    var items: [ExportItem] {
        destinations.indices.map { index in
            // Only called once every source is present.
            ExportItem(destination: destinations[index], source: sources[index]!, overwrite: overwrite)
        }
    }

    /// Validates the user's destination and type choice against the plan and the disk.
    static func choose(
        url: String?, contentType: String?, overwrite: Bool,
        plan: ExporterPlan, dialogDirectory: FilePath, types: any ContentTypeOracle
    ) throws(DialogError) -> ExportJob {
        let chosen: String
        if let contentType {
            // Identifiers compare case-insensitively (ASCII) wherever one is given: the type
            // offered as public.html is chosen as Public.HTML too, under the offered spelling.
            guard let offered = plan.offered.first(where: { $0.equalsIgnoringASCIICase(contentType) }) else {
                throw .contentTypeNotOffered(contentType, offered: plan.offered)
            }
            chosen = offered
        } else {
            chosen = plan.defaultChoice
        }
        let names = plan.filenames(choosing: chosen, types: types)

        let requested: FilePath
        if let url {
            requested = try ImportChoice.path(url)
        } else {
            requested = plan.savesIntoFolder ? dialogDirectory : dialogDirectory.appending(names[0])
        }
        // One document saved into a folder may still be answered with a file's path, by a
        // presenter that shows it a name field: a portal's SaveFiles lets the names change.
        let single = !plan.savesIntoFolder
            || (plan.documents.count == 1 && (try? FileStatus.of(requested))?.kind != .directory)
        // Errors name the destination as Wharf names it, not as the client spelt it.
        let shown = requested.url

        // Symlinks in the directory part are resolved once, now; the destination name itself
        // is never followed (the writer replaces whatever is there, a planted link included).
        let directory: FilePath
        var destinations: [FilePath]
        if single {
            if requested == .root { throw .rejectedChoice(url: shown, reason: "it is the root directory, not a file") }
            directory = try resolvedDirectory(requested.directory, shown: shown, what: "its directory")
            destinations = [directory.appending(requested.lastComponent)]
        } else {
            directory = try resolvedDirectory(
                requested, shown: shown, what: "several documents are saved into a directory, and it")
            destinations = names.map { directory.appending($0) }
        }

        if let rule = plan.destinationRule {
            // Before the question of an existing file: a name the rule refuses is refused
            // whatever is there.
            for destination in destinations where !rule.evaluate(EntryFacts(destination: destination, types: types), types: types) {
                throw .rejectedChoice(
                    url: destination.url, reason: "the dialog's urlEnabled predicate does not enable a file of this name")
            }
        }

        for destination in destinations {
            guard let existing = try? FileStatus.ofLink(destination) else { continue }
            let destinationURL = destination.url
            if existing.kind == .directory {
                throw .rejectedChoice(url: destinationURL, reason: "it is a directory")
            }
            if existing.isSpecial {
                throw .rejectedChoice(url: destinationURL, reason: "it is \(existing.specialKindDescription), which is never a document")
            }
            if !overwrite { throw .fileExists(url: destinationURL) }
        }

        return ExportJob(
            destinations: destinations,
            contentTypes: plan.resolvedTypes(choosing: chosen),
            sources: plan.documents.map(\.contents),
            overwrite: overwrite,
            directory: directory)
    }

    private static func resolvedDirectory(_ path: FilePath, shown: String, what: String) throws(DialogError) -> FilePath {
        let resolved: FilePath
        do {
            resolved = try path.resolved()
        } catch {
            throw .rejectedChoice(url: shown, reason: "\(what) (\(path)) cannot be used: \(error.reason)")
        }
        guard (try? FileStatus.of(resolved))?.kind == .directory else {
            throw .rejectedChoice(url: shown, reason: "\(what) (\(path)) is not a directory")
        }
        return resolved
    }
}
