import Glibc
import Testing
import WharfFileWriting
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

// MARK: Content types

/// A dozen content types with a small conformance tree, enough to exercise every rule.
struct FakeTypes: ContentTypeOracle {
    static let parents: [String: [String]] = [
        "public.item": [],
        "public.data": ["public.item"],
        "public.content": ["public.item"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"],
        "net.daringfireball.markdown": ["public.plain-text"],
        "public.json": ["public.text"],
        "com.adobe.pdf": ["public.data", "public.content"],
        "public.image": ["public.data", "public.content"],
        "public.png": ["public.image"],
        "public.directory": ["public.item"],
        "public.folder": ["public.directory"],
        "com.apple.package": ["public.directory"],
        "com.example.bundle": ["com.apple.package"],
    ]
    static let byExtension: [String: String] = [
        "txt": "public.plain-text", "text": "public.plain-text", "md": "net.daringfireball.markdown",
        "json": "public.json", "pdf": "com.adobe.pdf", "png": "public.png",
    ]
    static let preferred: [String: String] = [
        "public.plain-text": "txt", "public.utf8-plain-text": "txt", "net.daringfireball.markdown": "md",
        "public.json": "json", "com.adobe.pdf": "pdf", "public.png": "png",
    ]

    func isKnown(_ identifier: String) -> Bool { Self.parents[identifier] != nil }

    func description(of identifier: String) -> String? {
        ["public.plain-text": "plain text", "public.json": "JSON"][identifier]
    }

    func conforms(_ identifier: String, to other: String) -> Bool {
        if identifier == other { return true }
        return (Self.parents[identifier] ?? []).contains { conforms($0, to: other) }
    }

    /// By extension, as the real registry does when the name decides; a file without a known
    /// extension is sniffed: `text:` at its start makes it plain text (a stand-in for the
    /// registry's magic and text checks), anything else is data. Special files are `public.item`.
    func identify(name: [UInt8], status: FileStatus, readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String {
        let text = String(decoding: name, as: UTF8.self)
        var ext = ""
        if let dot = text.lastIndex(of: "."), dot != text.startIndex {
            ext = String(text[text.index(after: dot)...]).lowercased()
        }
        switch status.kind {
        case .directory: return ext == "bundle" ? "com.example.bundle" : "public.folder"
        case .regular: break
        default: return "public.item"
        }
        if let known = Self.byExtension[ext] { return known }
        var head = [UInt8](repeating: 0, count: 5)
        let count = (try? head.withUnsafeMutableBytes { buffer throws(SystemError) in try readHead(buffer) }) ?? 0
        return count == 5 && head == Array("text:".utf8) ? "public.plain-text" : "public.data"
    }

    func type(forFilename name: [UInt8]) -> String {
        var status = FileStatus.regularFile
        status.size = 1
        return identify(name: name, status: status) { _ throws(SystemError) in 0 }
    }

    func preferredFilenameExtension(of identifier: String) -> String? { Self.preferred[identifier] }

    func filters(for identifiers: [String]) -> DialogFilters {
        DialogFilters(
            globs: identifiers.compactMap { Self.preferred[$0].map { "*.\($0)" } },
            mimeTypes: [],
            directories: identifiers.contains { conforms($0, to: "public.directory") })
    }

    func isPackage(_ identifier: String) -> Bool { conforms(identifier, to: "com.apple.package") }
}

// MARK: Events

/// Collects the engine's events and lets a test wait for a dialog's ending.
/// `@unchecked Sendable`: `all` is only touched with `lock` held.
final class EventRecorder: DialogEventSink, @unchecked Sendable {
    private let lock = ConditionLock()
    private var all: [(ClientID, DialogEvent)] = []

    func deliver(_ event: DialogEvent, to client: ClientID) { record(client, event) }

    func record(_ client: ClientID, _ event: DialogEvent) {
        lock.withLock {
            all.append((client, event))
            lock.broadcast()
        }
    }

    /// Every event about `id`, in emission order.
    func events(_ id: DialogID) -> [DialogEvent] {
        lock.withLock { all.filter { $0.1.dialog == id }.map(\.1) }
    }

    /// Every event sent to `client`.
    func events(client: ClientID) -> [DialogEvent] {
        lock.withLock { all.filter { $0.0 == client }.map(\.1) }
    }

    var count: Int { lock.withLock { all.count } }

    /// Waits until `predicate` holds for the events of `id` (a hang guard, not a timing
    /// assertion: the guard is far longer than anything should take).
    @discardableResult
    func wait(
        for id: DialogID, sourceLocation: SourceLocation = #_sourceLocation,
        until predicate: ([DialogEvent]) -> Bool
    ) -> [DialogEvent] {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Deadline(secondsFromNow: 60)
        while !predicate(all.filter { $0.1.dialog == id }.map(\.1)) {
            if deadline.hasPassed {
                Issue.record("gave up waiting for events of \(id)", sourceLocation: sourceLocation)
                break
            }
            lock.wait(until: deadline)
        }
        return all.filter { $0.1.dialog == id }.map(\.1)
    }

    /// Waits for the dialog's ending and returns all its events.
    @discardableResult
    func waitForEnding(_ id: DialogID, sourceLocation: SourceLocation = #_sourceLocation) -> [DialogEvent] {
        wait(for: id, sourceLocation: sourceLocation) { $0.contains(where: \.isEnding) }
    }
}

/// The two events every ending consists of, in order.
func ending(_ id: DialogID, _ last: DialogEvent) -> [DialogEvent] {
    [.presentationChanged(id, isPresented: false), last]
}

// MARK: Presenters

/// Remembers what it was asked to show and hide.
final class RecordingPresenter: DialogPresenter, Sendable {
    var name: String { "recording" }
    private let recorded = Locked((shown: [PresentedDialog](), hidden: [DialogID]()))

    func show(_ dialog: PresentedDialog) { recorded.withValue { $0.shown.append(dialog) } }
    func hide(_ id: DialogID) { recorded.withValue { $0.hidden.append(id) } }

    var shown: [PresentedDialog] { recorded.withValue { $0.shown } }
    var hidden: [DialogID] { recorded.withValue { $0.hidden } }
    func dialog(_ id: DialogID) -> PresentedDialog? { shown.first { $0.id == id } }
}

// MARK: Writers

/// Writes plainly (no atomicity: that is the file-writing module's job) so the engine's
/// export path can be tested on its own. `hook` runs first and may fail, block or report progress.
struct TestWriter: ExportWriting {
    typealias Hook = @Sendable ([ExportItem], (@Sendable (ExportProgress) -> Void)?, ExportCancellation?) throws(ExportError) -> Void
    var hook: Hook?
    /// Throws `.cancelled` after the hook when a stop was requested, as a real writer that
    /// noticed it in time would.
    var honoursCancellation: Bool

    init(honoursCancellation: Bool = true, hook: Hook? = nil) {
        self.hook = hook
        self.honoursCancellation = honoursCancellation
    }

    /// A writer that waits at `gate` before it writes (a slow disk a test releases).
    static func waiting(at gate: Gate, honoursCancellation: Bool = true) -> TestWriter {
        TestWriter(honoursCancellation: honoursCancellation) { _, _, _ throws(ExportError) in gate.pass() }
    }

    func write(
        _ items: [ExportItem], progress: (@Sendable (ExportProgress) -> Void)?, cancellation: ExportCancellation?
    ) throws(ExportError) {
        try hook?(items, progress, cancellation)
        if honoursCancellation, cancellation?.isCancelled == true { throw .cancelled }
        for item in items {
            if !item.overwrite, (try? FileStatus.ofLink(item.destination)) != nil { throw .exists(path: item.destination) }
        }
        for item in items {
            let bytes: [UInt8]
            switch item.source {
            case .bytes(let data): bytes = data
            case .file(let path): bytes = readFile(path) ?? []
            case .descriptor(let descriptor, _): bytes = (try? descriptor.reopen(O_RDONLY).readToEnd()) ?? []
            }
            removeFile(item.destination)
            do {
                try FileDescriptor.open(item.destination, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644).write(all: bytes)
            } catch {
                throw .failed(path: item.destination, cause: error)
            }
        }
    }
}

/// A gate a test opens to let a blocked writer go on.
/// `@unchecked Sendable`: its state is only touched with `lock` held.
final class Gate: @unchecked Sendable {
    private let lock = ConditionLock()
    private var isOpen = false
    private var arrived = 0

    func open() { lock.withLock { isOpen = true; lock.broadcast() } }

    /// Called by the blocked party: waits until the gate opens.
    func pass() {
        lock.withLock {
            arrived += 1
            lock.broadcast()
            let deadline = Deadline(secondsFromNow: 60)
            while !isOpen && !deadline.hasPassed { lock.wait(until: deadline) }
        }
    }

    /// Waits until someone is waiting at the gate.
    func waitForArrival() {
        lock.withLock {
            let deadline = Deadline(secondsFromNow: 60)
            while arrived == 0 && !deadline.hasPassed { lock.wait(until: deadline) }
        }
    }
}

// MARK: Files

/// The shared scratch directory, with the names these tests use.
extension ScratchDirectory {
    func at(_ relative: String) -> FilePath { path(relative) }

    /// Writes a small file (or `contents`) at `relative`; its path.
    @discardableResult
    func makeFile(_ relative: String, _ contents: String = "x") -> FilePath { write(relative, contents) }

    @discardableResult
    func directory(_ relative: String) -> FilePath { makeDirectory(relative) }
}

extension NameOrdering {
    static func precedes(_ a: String, _ b: String) -> Bool { precedes(Array(a.utf8), Array(b.utf8)) }
}

/// The engine's methods with paths where the protocol has URL strings (a test's paths are
/// UTF-8, so their text is their bytes).
extension DialogEngine {
    func choose(client: ClientID, id: DialogID, urls: [FilePath]) throws(DialogError) {
        try choose(client: client, id: id, urls: urls.map(\.description))
    }

    func save(client: ClientID, id: DialogID, url: FilePath, contentType: String?, overwrite: Bool) throws(DialogError) {
        try save(client: client, id: id, url: url.description, contentType: contentType, overwrite: overwrite)
    }

    func list(client: ClientID, id: DialogID, directory: FilePath, cursor: String? = nil, limit: Int? = nil) throws(DialogError) -> DirectoryListing {
        try list(client: client, id: id, directory: directory.description, cursor: cursor, limit: limit)
    }
}

// MARK: Harness

/// An engine with a manual clock, an event recorder, a recording presenter and a temp dir.
/// `@unchecked Sendable`: every stored property is a `let` of a thread-safe type; the temporary directory is only removed at the end.
final class Harness: @unchecked Sendable {
    let scheduler = ManualScheduler()
    let events = EventRecorder()
    let memory = InMemoryDirectoryMemory()
    let presenter = RecordingPresenter()
    let types = FakeTypes()
    let dir = ScratchDirectory("wharf-dialogs")
    let engine: DialogEngine
    let client: ClientID = 1

    init(writer: any ExportWriting = TestWriter(), mover: any FileMoving = SystemFileMover(), maxDialogsPerClient: Int = 64,
         listingCache: ListingCacheLimits = ListingCacheLimits()) {
        engine = DialogEngine(
            maxDialogsPerClient: maxDialogsPerClient, listingCache: listingCache, memory: memory, writer: writer,
            mover: mover, scheduler: scheduler, homeDirectory: dir.path, sink: events)
    }

    func importer(
        _ types: [String] = ["public.plain-text"], multiple: Bool = false, presentationId: String? = nil,
        options: DialogOptions? = nil, client: ClientID? = nil, app: String = "test-app",
        presenter: (any DialogPresenter)? = nil
    ) throws(DialogError) -> DialogID {
        try engine.present(
            client: client ?? self.client, app: app,
            request: ImporterRequest(
                allowedContentTypes: types, allowsMultipleSelection: multiple, presentationId: presentationId,
                options: options ?? DialogOptions(defaultDirectory: dir.path)),
            presenter: presenter ?? self.presenter, types: self.types)
    }

    func exporter(
        _ request: ExporterRequest, client: ClientID? = nil, presenter: (any DialogPresenter)? = nil
    ) throws(DialogError) -> DialogID {
        var request = request
        if request.options.defaultDirectory == nil { request.options.defaultDirectory = dir.path }
        return try engine.present(
            client: client ?? self.client, app: "test-app", request: request,
            presenter: presenter ?? self.presenter, types: types)
    }

    /// A one-document text export.
    func textExporter(_ text: String = "hello", filename: String? = "notes", lazy: Bool = false) throws(DialogError) -> DialogID {
        try exporter(ExporterRequest(
            documents: [ExportDocument(
                filename: filename, writableContentTypes: ["public.plain-text"],
                contents: lazy ? nil : .bytes(Array(text.utf8)))],
            contentTypes: .contentType("public.plain-text")))
    }
}

/// Runs `body` and returns the DialogError it throws, or nil. (Closures do not infer typed
/// throws, hence the cast.)
func dialogError(_ body: () throws -> Void) -> DialogError? {
    do {
        try body()
        return nil
    } catch {
        return error as? DialogError
    }
}
