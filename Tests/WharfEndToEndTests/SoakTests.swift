import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// The soak: 100,000 importer and exporter cycles through one `wharf` process, with
/// dismissals, cancellations, cancellations racing choices, timeouts and leases mixed in, then
/// clients that disconnect with dialogs and leases open. Afterwards every dialog has ended
/// exactly once, no temporary file is left in the export folder, no grant or lease is left in
/// the store, and the server's resident memory did not keep growing over the second half of
/// the cycles.
///
/// Why the second half: the release server's memory settles slowly, then stays put (a
/// 300,000-cycle run on 2026-12-01: 8.3 MiB at the start, 11.0 after 20,000 cycles, 12.4 after
/// 100,000, 12.9 after 180,000, and not a page more up to 300,000). Measured from 10,000 cycles
/// that settling alone came to 10–12% and failed one run in three. A leak grows in both
/// quarters of the second half; what the test fails on is that, at 8% of about 12 MiB a quarter:
/// what a leak of some 40 bytes a cycle would add (checked: 40 bytes leaked as each dialog
/// ends fails it). Anything a dialog leaves behind (its record, a closure) is larger. The
/// settling is not the same everywhere: 1–2% a quarter in every run here, idle or with both
/// cores busy, 7673e4c's server and 2244c8d's alike, but 5.3% and 4.9% in one CI run beside
/// the sanitizer builds (2026-12-04; another grew 11% over the half), which a 4% bar failed.
/// That points to settling, not a leak: 400,000 cycles with both cores kept busy by two other
/// processes grew 16 KiB from 200,000 to 300,000 and 48 KiB to 400,000 (12,204 to 12,268 KiB).
/// The test prints the three figures, so CI's logs show how close a run came. Even so, no
/// more than 20% over the half.
///
/// The test client is the client's side of the presenter (`presentsDialogs`), so it decides
/// how each dialog ends, and is deliberately lean (no per-message thread or history) so that
/// 100,000 cycles fit in well under a minute in a debug build.
///
/// `SOAK_CYCLES` scales the run down for slow variants (`make bench` runs it with the server
/// under valgrind, `SOAK_UNDER_VALGRIND=1`, which also drops the memory comparison); `make test`
/// runs the full 100,000.
@Suite(.serialized) struct Soak {
    static let cycles: Int = {
        guard let text = getenv("SOAK_CYCLES"), let value = Int(String(cString: text)), value >= 100 else { return 100_000 }
        return value
    }()
    static let warmUpCycles = cycles / 2

    @Test func aHundredThousandDialogCyclesEndExactlyOnceAndLeaveNothingBehind() throws {
        let scratch = ScratchDirectory("wharf-soak")
        let exports = memoryDirectory("wharf-soak-exports")
        let picked = scratch.write("picked.txt", "picked\n").description
        let state = scratch.file("state")

        let server = try SoakClient(arguments: ["--state-dir", state, "--max-dialogs-per-client", "64", "--log-level", "error"])
        var run = SoakRun(client: server, picked: picked, exports: exports.directory, total: Self.cycles, window: 32)
        run.warmUp = Self.warmUpCycles
        try run.drive()
        let report = run.finish()

        #expect(report.problems == [], "\(report.problems.prefix(10))")
        #expect(report.dialogs == Self.cycles)
        #expect(report.endings.values.reduce(0, +) == Self.cycles, "one ending per dialog")
        #expect(report.activeLeases == 0, "every lease taken during the run was released")
        // Every kind of ending happened (the mix is deterministic; races may go either way).
        for ending in ["completed importer", "completed exporter", "cancelled user", "cancelled client", "cancelled timeout"] {
            #expect((report.endings[ending] ?? 0) > 0, "no dialog ended as \(ending)")
        }
        let warm = Double(try #require(report.residentAfterWarmUp))
        let middle = Double(try #require(report.residentAtThreeQuarters))
        let last = Double(try #require(report.residentAtEnd))
        // Under valgrind (`make bench`) resident memory is valgrind's own, and the run is short.
        if getenv("SOAK_UNDER_VALGRIND") == nil {
            let grew = "resident memory grew from \(Int(warm)) KiB after \(Self.warmUpCycles) cycles to \(Int(middle)) KiB, then \(Int(last)) KiB"
            print("soak: \(grew)")
            #expect(!((middle - warm) / warm > 0.08 && (last - middle) / warm > 0.08), "still growing: \(grew)")
            #expect(last <= warm * 1.2, "\(grew)")
        }
        #expect(server.shutdownAndExit() == 0)

        // Clients that go away with dialogs and leases open: each open dialog ends once, as
        // `disconnected`, and the leases go with the session.
        for session in 0..<20 {
            let client = try SoakClient(arguments: ["--state-dir", state, "--log-level", "error"])
            let ended = try disconnectWithEverythingOpen(client, picked: picked, exports: exports.directory, session: session)
            #expect(ended.problems == [], "session \(session): \(ended.problems.prefix(5))")
            #expect(ended.exitStatus == 1, "ending without shutdown exits 1")
        }

        #expect(exports.contents().allSatisfy { $0.hasPrefix("out-") && $0.hasSuffix(".txt") },
                "temporary files left: \(exports.contents().filter { !$0.hasPrefix("out-") })")
        let listing = try runWharf(["access", "list", "--state-dir", state])
        #expect(listing.status == 0)
        #expect(listing.output.contains("No app holds access to anything."), "left in the store: \(listing.output)")
    }

    /// Opens dialogs of both kinds, completes some importers and resolves their URLs (leases
    /// left open), then closes the server's input and reads until it exits.
    func disconnectWithEverythingOpen(_ client: SoakClient, picked: String, exports: String, session: Int) throws -> (problems: [String], exitStatus: Int32?) {
        var problems: [String] = []
        var open: Set<String> = []
        for index in 0..<12 {
            let exporter = index % 3 == 2
            let params: JSON = exporter
                ? ["documents": [["filename": "left", "writableContentTypes": ["public.plain-text"], "contents": ["text": "x"]]],
                   "contentType": "public.plain-text"]
                : ["allowedContentTypes": ["public.item"]]
            guard let id = client.call(exporter ? "presentExporter" : "presentImporter", params)?["result"]?["dialogId"]?.stringValue else {
                problems.append("presenting dialog \(index) failed")
                continue
            }
            open.insert(id)
        }
        // Three importers complete, and each of their URLs is resolved and left leased.
        for id in open.sorted().prefix(3) {
            let reply = client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(picked)]])
            guard reply?["result"] != nil else {
                problems.append("choosing in \(id): \(reply?.jsonText ?? "no reply")")
                continue
            }
            open.remove(id)
        }
        var endings: [String: Int] = [:]
        var leased = 0
        while leased < 3, let message = client.next() {
            guard let method = message["method"]?.stringValue else { continue }
            if method == "dialog/completed", let url = message["params"]?["urls"]?.arrayValue?.first {
                endings[message["params"]?["dialogId"]?.stringValue ?? "", default: 0] += 1
                if client.call("resolveAccess", ["url": url])?["result"]?["accessId"] == nil { problems.append("resolveAccess failed") }
                leased += 1
            }
        }
        client.closeInput()
        while let message = client.next() {
            guard let method = message["method"]?.stringValue, let id = message["params"]?["dialogId"]?.stringValue else { continue }
            switch method {
            case "dialog/cancelled":
                endings[id, default: 0] += 1
                if message["params"]?["reason"] != "disconnected" { problems.append("\(id) ended \(message["params"]?["reason"]?.jsonText ?? "?")") }
            case "dialog/completed":
                endings[id, default: 0] += 1
            default:
                break
            }
        }
        for id in open where endings[id] != 1 { problems.append("\(id) ended \(endings[id] ?? 0) times") }
        for (id, count) in endings where count != 1 { problems.append("\(id) ended \(count) times") }
        return (problems, client.waitForExit())
    }
}

// MARK: - The workload

/// How one dialog is meant to end; picked from a fixed pseudo-random sequence.
enum CycleKind: CaseIterable {
    case importerChoose, importerLease, importerDismiss, importerCancel, importerRace, importerTimeout
    case exporterSave, exporterCancel

    /// Out of 20: the mix of the run.
    var weight: Int {
        switch self {
        case .importerChoose: return 5
        case .importerLease: return 1
        case .importerDismiss: return 2
        case .importerCancel: return 2
        case .importerRace: return 2
        case .importerTimeout: return 2
        case .exporterSave: return 4
        case .exporterCancel: return 2
        }
    }

    var isExporter: Bool { self == .exporterSave || self == .exporterCancel }

    /// The endings this kind may have (`method reason-or-kind`).
    var allowedEndings: Set<String> {
        switch self {
        case .importerChoose, .importerLease: return ["completed importer"]
        case .importerDismiss: return ["cancelled user"]
        case .importerCancel: return ["cancelled client"]
        case .importerRace: return ["completed importer", "cancelled client"]
        case .importerTimeout: return ["cancelled timeout"]
        case .exporterSave: return ["completed exporter"]
        case .exporterCancel: return ["cancelled client"]
        }
    }
}

/// The state of the main run: requests in flight, dialogs open, endings seen.
struct SoakRun {
    enum Pending {
        case present(CycleKind, cycle: Int)
        case answer(String, CycleKind)
        case resolve
        case release
        case listAccess
    }

    struct Dialog {
        /// Nil until the reply to `present…` arrives (a timeout can end a dialog first).
        var kind: CycleKind?
        var presentationChanged = 0
        var endings = 0
        var ending: String?
    }

    struct Report {
        var problems: [String]
        var dialogs: Int
        var endings: [String: Int]
        var activeLeases: Int?
        var residentAfterWarmUp: Int?
        var residentAtThreeQuarters: Int?
        var residentAtEnd: Int?
    }

    let client: SoakClient
    let picked: String
    let exports: String
    let total: Int
    let window: Int
    var warmUp = 10_000

    var nextID: Int64 = 1
    var pending: [Int64: Pending] = [:]
    var dialogs: [String: Dialog] = [:]
    var started = 0
    var ended = 0
    var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    var problems: [String] = []
    var endings: [String: Int] = [:]
    var residentAfterWarmUp: Int?
    var residentAtThreeQuarters: Int?
    var activeLeases: Int?

    init(client: SoakClient, picked: String, exports: String, total: Int, window: Int) {
        self.client = client
        self.picked = picked
        self.exports = exports
        self.total = total
        self.window = window
    }

    mutating func drive() throws {
        while ended < total || !pending.isEmpty {
            while started < total && started - ended < window { startCycle() }
            client.flush()
            guard let message = client.next() else {
                problems.append("the server closed its output after \(ended) of \(total) dialogs ended")
                return
            }
            handle(message)
            if residentAfterWarmUp == nil && ended >= warmUp {
                residentAfterWarmUp = residentKilobytes(client.pid)
            }
            if residentAtThreeQuarters == nil && ended >= warmUp + (total - warmUp) / 2 {
                residentAtThreeQuarters = residentKilobytes(client.pid)
            }
        }
    }

    /// Settles, asks for the session's open leases, and measures memory.
    mutating func finish() -> Report {
        send("listAccess", nil, .listAccess)
        client.flush()
        while !pending.isEmpty, let message = client.next() { handle(message) }
        for (id, dialog) in dialogs where dialog.endings != 1 || dialog.presentationChanged != 1 || dialog.kind == nil {
            problems.append("\(id) (\(dialog.kind.map { "\($0)" } ?? "never presented")): \(dialog.endings) endings, \(dialog.presentationChanged) presentationChanged")
        }
        return Report(problems: problems, dialogs: dialogs.count, endings: endings, activeLeases: activeLeases,
                      residentAfterWarmUp: residentAfterWarmUp, residentAtThreeQuarters: residentAtThreeQuarters,
                      residentAtEnd: residentKilobytes(client.pid))
    }

    // MARK: Sending

    mutating func nextKind() -> CycleKind {
        // xorshift64*: deterministic, so a failure can be replayed.
        random ^= random >> 12
        random ^= random << 25
        random ^= random >> 27
        var roll = Int((random &* 0x2545_F491_4F6C_DD1D) >> 33) % 20
        for kind in CycleKind.allCases {
            if roll < kind.weight { return kind }
            roll -= kind.weight
        }
        return .importerChoose
    }

    mutating func startCycle() {
        let kind = nextKind()
        let params: JSON
        if kind.isExporter {
            params = ["documents": [["filename": "out", "writableContentTypes": ["public.plain-text"], "contents": ["text": .string("cycle \(started)\n")]]],
                      "contentType": "public.plain-text"]
        } else if kind == .importerTimeout {
            params = ["allowedContentTypes": ["public.item"], "options": ["timeoutMs": 1]]
        } else {
            params = ["allowedContentTypes": ["public.item"]]
        }
        send(kind.isExporter ? "presentExporter" : "presentImporter", params, .present(kind, cycle: started))
        started += 1
    }

    mutating func send(_ method: String, _ params: JSON?, _ purpose: Pending) {
        let id = nextID
        nextID += 1
        pending[id] = purpose
        var message: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { message["params"] = params }
        client.queue(.object(message))
    }

    /// What the client's presenter does once a dialog is on screen.
    mutating func act(on id: String, _ kind: CycleKind, cycle: Int) {
        let dialog: JSON = .string(id)
        switch kind {
        case .importerChoose, .importerLease:
            send("dialog/choose", ["dialogId": dialog, "urls": [.string(picked)]], .answer(id, kind))
        case .importerDismiss:
            send("dialog/dismiss", ["dialogId": dialog], .answer(id, kind))
        case .importerCancel, .exporterCancel:
            send("cancel", ["dialogId": dialog], .answer(id, kind))
        case .importerRace:
            // The app cancels while the human confirms: exactly one of them ends the dialog.
            send("cancel", ["dialogId": dialog], .answer(id, kind))
            send("dialog/choose", ["dialogId": dialog, "urls": [.string(picked)]], .answer(id, kind))
        case .importerTimeout:
            break
        case .exporterSave:
            let destination = exports + "/out-\(cycle % 8).txt"
            send("dialog/choose", ["dialogId": dialog, "url": .string(destination), "overwrite": true], .answer(id, kind))
        }
    }

    // MARK: Receiving

    mutating func handle(_ message: JSON) {
        if let method = message["method"]?.stringValue {
            handleNotification(method, message["params"])
            return
        }
        guard let id = message["id"]?.intValue, let purpose = pending.removeValue(forKey: id) else {
            problems.append("a reply to no request of ours: \(message.jsonText.prefix(200))")
            return
        }
        let result = message["result"]
        switch purpose {
        case .present(let kind, let cycle):
            guard let dialog = result?["dialogId"]?.stringValue else {
                problems.append("presenting \(kind) failed: \(message.jsonText.prefix(200))")
                ended += 1
                return
            }
            if dialogs[dialog]?.kind != nil { problems.append("dialog id \(dialog) handed out twice") }
            dialogs[dialog, default: Dialog()].kind = kind
            if let ending = dialogs[dialog]?.ending {
                // It ended before we heard it was presented (a 1 ms timeout): judge it now.
                if !kind.allowedEndings.contains(ending) { problems.append("\(dialog) (\(kind)) ended as \(ending)") }
            } else {
                act(on: dialog, kind, cycle: cycle)
            }
        case .answer(let dialog, let kind):
            // Only a race may lose; everything else the presenter says must be accepted.
            if result == nil && kind != .importerRace {
                problems.append("\(kind) in \(dialog) refused: \(message.jsonText.prefix(200))")
            }
        case .resolve:
            if let access = result?["accessId"] {
                send("releaseAccess", ["accessId": access], .release)
            } else {
                problems.append("resolveAccess failed: \(message.jsonText.prefix(200))")
            }
        case .release:
            if result == nil { problems.append("releaseAccess failed: \(message.jsonText.prefix(200))") }
        case .listAccess:
            activeLeases = result?["activeLeases"]?.intValue.map(Int.init)
        }
    }

    mutating func handleNotification(_ method: String, _ params: JSON?) {
        guard let id = params?["dialogId"]?.stringValue else { return }
        switch method {
        case "dialog/presentationChanged":
            dialogs[id, default: Dialog()].presentationChanged += 1
            if dialogs[id]?.endings != 0 { problems.append("\(id): presentationChanged after its ending") }
        case "dialog/completed", "dialog/cancelled":
            let completed = method == "dialog/completed"
            let detail = completed ? (params?["kind"]?.stringValue ?? "?") : (params?["reason"]?.stringValue ?? "?")
            let ending = (completed ? "completed " : "cancelled ") + detail
            if completed && params?["error"] != nil { problems.append("\(id) failed: \(params?.jsonText.prefix(200) ?? "")") }
            endings[ending, default: 0] += 1
            var dialog = dialogs[id, default: Dialog()]
            dialog.endings += 1
            dialog.ending = dialog.ending ?? ending
            if dialog.presentationChanged != 1 { problems.append("\(id): \(ending) without presentationChanged first") }
            if let kind = dialog.kind, !kind.allowedEndings.contains(ending) { problems.append("\(id) (\(kind)) ended as \(ending)") }
            dialogs[id] = dialog
            if dialog.endings == 1 { ended += 1 }
            if dialog.kind == .importerLease, completed, let url = params?["urls"]?.arrayValue?.first {
                send("resolveAccess", ["url": url], .resolve)
            }
        default:
            break
        }
    }
}

// MARK: - A lean client

/// A spawned `wharf` with a single-threaded client: requests are queued and written in one go,
/// replies read through a large buffer and decoded one at a time. Standard error is drained on
/// a thread so that the server never blocks on it.
final class SoakClient {
    let child: ChildProcess
    private var decoder = FrameDecoder(mode: .lsp, maxMessageBytes: Int.max)
    private var outgoing: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private var nextID: Int64 = 1_000_000_000
    /// Messages `call` read past while waiting for its reply; `next` hands them out first.
    private var backlog: [JSON] = []
    private var backlogStart = 0

    var pid: pid_t { child.pid }

    init(arguments: [String]) throws {
        child = try ChildProcess(path: wharfExecutablePath(), arguments: arguments)
        // A descriptor of its own (ChildProcess.stderrCopy): the reader runs until the server's
        // end, which may come after this object has let the child go.
        let errors = try #require(try child.stderrCopy())
        startThread {
            var sink = [UInt8](repeating: 0, count: 65536)
            while sink.withUnsafeMutableBytes({ (try? errors.read(into: $0)) ?? 0 }) > 0 {}
        }
        _ = call("initialize", ["clientInfo": ["name": "wharf-soak"], "capabilities": ["presentsDialogs": true]])
        queue(["jsonrpc": "2.0", "method": "initialized", "params": [:]])
    }

    func queue(_ message: JSON) {
        let body = message.serialized()
        outgoing += FrameDecoder.header(forBodyLength: body.count)
        outgoing += body
    }

    func flush() {
        var offset = 0
        while offset < outgoing.count {
            let written = outgoing.withUnsafeBytes { write(child.stdin, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            offset += written
        }
        outgoing.removeAll(keepingCapacity: true)
    }

    /// The next message from the server, nil at the end of its output.
    func next() -> JSON? {
        if backlogStart < backlog.count {
            defer {
                backlogStart += 1
                if backlogStart == backlog.count { backlog.removeAll(); backlogStart = 0 }
            }
            return backlog[backlogStart]
        }
        return receive()
    }

    private func receive() -> JSON? {
        while true {
            while let event = decoder.next() {
                guard case .message(let body) = event else { continue }
                if let message = try? JSON.parse(body) { return message }
            }
            let count = buffer.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// Sends one request and reads up to its reply; other messages met on the way wait in the
    /// backlog for `next`.
    func call(_ method: String, _ params: JSON?) -> JSON? {
        let id = nextID
        nextID += 1
        var message: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { message["params"] = params }
        queue(.object(message))
        flush()
        while let reply = receive() {
            if reply["id"] == .int(id) && reply["method"] == nil { return reply }
            backlog.append(reply)
        }
        return nil
    }

    func shutdownAndExit() -> Int32? {
        _ = call("shutdown", nil)
        queue(["jsonrpc": "2.0", "method": "exit"])
        flush()
        closeInput()
        while next() != nil {}
        return waitForExit()
    }

    func closeInput() { child.closeStdin() }

    func waitForExit() -> Int32? {
        while next() != nil {}
        return child.waitForExit(seconds: 30)
    }
}

/// A fresh directory in memory (/dev/shm) when there is one: exports are fsynced, and
/// 40,000 fsyncs on a disk would not fit in a minute.
func memoryDirectory(_ label: String) -> ScratchDirectory {
    ScratchDirectory(label, in: access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")
}

/// Runs `wharf` with `arguments` to completion: its exit status and standard output.
func runWharf(_ arguments: [String]) throws -> (status: Int32?, output: String) {
    let child = try ChildProcess(path: wharfExecutablePath(), arguments: arguments)
    child.closeStdin()
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        output += chunk[0..<count]
    }
    return (child.waitForExit(seconds: 30), String(decoding: output, as: UTF8.self))
}
