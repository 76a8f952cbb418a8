import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

// Test doubles for the engine's injected dependencies: a clock that moves only when told to,
// and a directory memory that lives in memory.

/// A clock that moves only when told to: work scheduled with ``after(milliseconds:_:)`` runs
/// when ``advance(milliseconds:)`` passes its deadline, in deadline order (then scheduling
/// order), on the thread that advances.
final class ManualScheduler: DialogScheduler {
    private struct Pending {
        var deadline: Int
        var sequence: Int
        var work: @Sendable () -> Void
    }

    private struct State {
        var nowMilliseconds = 0
        var sequence = 0
        var pending: [Pending] = []
    }

    private let state = Locked(State())

    init() {}

    @discardableResult
    func after(milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let sequence = state.withValue { state in
            state.sequence += 1
            state.pending.append(Pending(
                deadline: state.nowMilliseconds + max(0, milliseconds), sequence: state.sequence, work: work))
            return state.sequence
        }
        return { [state] in state.withValue { $0.pending.removeAll { $0.sequence == sequence } } }
    }

    var now: Double { state.withValue { Double($0.nowMilliseconds) / 1000 } }

    /// How many pieces of work are waiting for their time.
    var pendingCount: Int { state.withValue { $0.pending.count } }

    /// How many pieces of work were ever scheduled.
    var scheduledCount: Int { state.withValue { $0.sequence } }

    /// Moves the clock forward, running everything that falls due, including work scheduled by
    /// that work, until nothing more is due. Work runs without the scheduler's lock held.
    func advance(milliseconds: Int = 0) {
        let target = state.withValue { $0.nowMilliseconds + max(0, milliseconds) }
        while let next = takeNextDue(before: target) {
            next()
        }
        state.withValue { $0.nowMilliseconds = max($0.nowMilliseconds, target) }
    }

    private func takeNextDue(before target: Int) -> (@Sendable () -> Void)? {
        state.withValue { state in
            guard let index = state.pending.indices.min(by: {
                (state.pending[$0].deadline, state.pending[$0].sequence)
                    < (state.pending[$1].deadline, state.pending[$1].sequence)
            }), state.pending[index].deadline <= target else { return nil }
            let due = state.pending.remove(at: index)
            state.nowMilliseconds = max(state.nowMilliseconds, due.deadline)
            return due.work
        }
    }
}

/// A ``DirectoryMemory`` that forgets at exit.
final class InMemoryDirectoryMemory: DirectoryMemory {
    private struct Key: Hashable {
        var app: String
        var customizationId: String
    }

    private let directories = Locked<[Key: FilePath]>([:])

    init() {}

    func rememberedDirectory(app: String, customizationId: String) -> FilePath? {
        directories.withValue { $0[Key(app: app, customizationId: customizationId)] }
    }

    func remember(app: String, customizationId: String, directory: FilePath) {
        directories.withValue { $0[Key(app: app, customizationId: customizationId)] = directory }
    }
}

/// ``FakeTypes`` with something done to the disk while a file is being identified: `before`
/// as identification starts, `afterHead` once its first bytes were read (if they are). That is
/// where a choice stands between looking at a file and granting it, and a client that can
/// write in the folder could swap the path then.
struct MeddlingTypes: ContentTypeOracle {
    let base = FakeTypes()
    var before: @Sendable ([UInt8]) -> Void = { _ in }
    var afterHead: @Sendable ([UInt8]) -> Void = { _ in }

    func isKnown(_ identifier: String) -> Bool { base.isKnown(identifier) }
    func conforms(_ identifier: String, to other: String) -> Bool { base.conforms(identifier, to: other) }
    func type(forFilename name: [UInt8]) -> String { base.type(forFilename: name) }
    func preferredFilenameExtension(of identifier: String) -> String? { base.preferredFilenameExtension(of: identifier) }
    func description(of identifier: String) -> String? { base.description(of: identifier) }
    func filters(for identifiers: [String]) -> DialogFilters { base.filters(for: identifiers) }
    func isPackage(_ identifier: String) -> Bool { base.isPackage(identifier) }

    func identify(name: [UInt8], status: FileStatus, readHead: @escaping (UnsafeMutableRawBufferPointer) throws(SystemError) -> Int) -> String {
        before(name)
        let afterHead = afterHead
        return base.identify(name: name, status: status) { buffer throws(SystemError) in
            defer { afterHead(name) }
            return try readHead(buffer)
        }
    }
}

extension DialogEngine {
    /// Checks `request` and presents it, as a server does when it has nothing to do between
    /// the two; `announce` stands for the server's announcer.
    func present(
        client: ClientID, app: String, request: ImporterRequest, presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true }, announce: @escaping @Sendable (PresentedDialog) -> Bool = { _ in true }
    ) throws(DialogError) -> DialogID {
        try present(client: client, app: app, request: Self.check(request, types: types), presenter: presenter, types: types,
                    isLive: isLive, announcer: AnnouncedBy(announce))
    }

    /// The exporter's twin of the importer's `present` above.
    func present(
        client: ClientID, app: String, request: ExporterRequest, presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true }, announce: @escaping @Sendable (PresentedDialog) -> Bool = { _ in true }
    ) throws(DialogError) -> DialogID {
        try present(client: client, app: app, request: Self.check(request, types: types), presenter: presenter, types: types,
                    isLive: isLive, announcer: AnnouncedBy(announce))
    }

    /// The mover's twin of the importer's `present` above.
    func present(
        client: ClientID, app: String, request: MoverRequest, presenter: any DialogPresenter, types: any ContentTypeOracle,
        isLive: () -> Bool = { true }, announce: @escaping @Sendable (PresentedDialog) -> Bool = { _ in true }
    ) throws(DialogError) -> DialogID {
        try present(client: client, app: app, request: Self.check(request, types: types), presenter: presenter, types: types,
                    isLive: isLive, announcer: AnnouncedBy(announce))
    }
}

/// An announcer that answers what a test's closure says.
struct AnnouncedBy: DialogAnnouncer {
    let body: @Sendable (PresentedDialog) -> Bool
    init(_ body: @escaping @Sendable (PresentedDialog) -> Bool) { self.body = body }
    func announce(_ dialog: PresentedDialog) -> Bool { body(dialog) }
}
