#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import WharfFileWriting
import WharfSystem
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

    func conforms(_ identifier: String, to other: String) -> Bool {
        if identifier == other { return true }
        return (Self.parents[identifier] ?? []).contains { conforms($0, to: other) }
    }

    func identifyByName(_ name: String, isDirectory: Bool) -> String {
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            ext = String(name[name.index(after: dot)...]).lowercased()
        }
        if isDirectory { return ext == "bundle" ? "com.example.bundle" : "public.folder" }
        return Self.byExtension[ext] ?? "public.data"
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
final class EventRecorder: @unchecked Sendable {
    private let lock = ConditionLock()
    private var all: [(ClientID, DialogEvent)] = []

    var sink: DialogEngine.EventSink { { [self] client, event in record(client, event) } }

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
final class RecordingPresenter: DialogPresenter, @unchecked Sendable {
    private let lock = ConditionLock()
    private var _shown: [PresentedDialog] = []
    private var _hidden: [DialogID] = []

    func show(_ dialog: PresentedDialog) { lock.withLock { _shown.append(dialog) } }
    func hide(_ id: DialogID) { lock.withLock { _hidden.append(id) } }

    var shown: [PresentedDialog] { lock.withLock { _shown } }
    var hidden: [DialogID] { lock.withLock { _hidden } }
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
            }
            unlink(item.destination)
            let descriptor = open(item.destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .failed(path: item.destination, cause: .current("open", path: item.destination)) }
            _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
    }
}

/// A gate a test opens to let a blocked writer go on.
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

/// A fresh directory under /tmp, removed with everything in it when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init() {
        var template = Array("/tmp/wharf-dialogs-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        // Resolved, so paths the engine resolves compare equal.
        path = try! FilePath.resolve(String(cString: made!))
    }

    deinit { Self.remove(path) }

    func at(_ relative: String) -> String { FilePath.join(path, relative) }

    @discardableResult
    func file(_ relative: String, _ contents: String = "x") -> String {
        let full = at(relative)
        writeFile(full, Array(contents.utf8))
        return full
    }

    @discardableResult
    func directory(_ relative: String) -> String {
        let full = at(relative)
        mkdir(full, 0o755)
        return full
    }

    @discardableResult
    func symlink(_ relative: String, to target: String) -> String {
        let full = at(relative)
        Glibc.symlink(target, full)
        return full
    }

    /// A bound Unix socket: a file that exists but that `open` refuses even to root (ENXIO),
    /// which is how the tests, running as root, get a file that cannot be read.
    @discardableResult
    func socket(_ relative: String) -> String {
        let full = at(relative)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in full.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(descriptor)
        return full
    }

    static func remove(_ path: String) {
        if let entries = try? DirectoryReader.read(path) {
            for entry in entries {
                let full = FilePath.join(path, entry.name)
                if !entry.isSymlink && entry.status.kind == .directory { remove(full) } else { unlink(full) }
            }
        }
        rmdir(path)
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(descriptor >= 0, "cannot create \(path)")
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

func readFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        result.append(contentsOf: buffer[0..<count])
    }
    return result
}

func readText(_ path: String) -> String? { readFile(path).map { String(decoding: $0, as: UTF8.self) } }

func exists(_ path: String) -> Bool { (try? FileStatus.ofLink(path)) != nil }

// MARK: Harness

/// An engine with a manual clock, an event recorder, a recording presenter and a temp dir.
final class Harness: @unchecked Sendable {
    let scheduler = ManualScheduler()
    let events = EventRecorder()
    let memory = InMemoryDirectoryMemory()
    let presenter = RecordingPresenter()
    let types = FakeTypes()
    let dir = TemporaryDirectory()
    let engine: DialogEngine
    let client: ClientID = 1

    init(writer: any ExportWriting = TestWriter(), maxDialogsPerClient: Int = 64) {
        engine = DialogEngine(
            maxDialogsPerClient: maxDialogsPerClient, memory: memory, writer: writer, scheduler: scheduler,
            homeDirectory: dir.path, sink: events.sink)
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
