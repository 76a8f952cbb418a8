import Testing
import WharfJSON
import WharfServer
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Nothing waits on the database under the engine's lock or on a read loop: while another
/// process holds the state database locked, every client's `ping` and `cancel` (and the rest
/// of a dialog's life) still answer at once; only the request that must write durably, a
/// bookmark, waits for the lock, on its own client's worker.
///
/// One test at a time: the first measures how long answers take, and the others' locks and
/// session ends beside it are load it would measure.
@Suite(.serialized) struct LockedStore {
    /// How long the other process holds the lock.
    static let lockSeconds = 5.0

    @Test func aLockedDatabaseDelaysNoClientsPingOrCancel() throws {
        let (scratch, server) = try serverBesideANote()
        let writer = WireClient.inProcess(sharing: server)
        let other = WireClient.inProcess(sharing: server)
        for client in [writer, other] {
            #expect(client.initialize(["clientInfo": ["name": "locked-store"], "capabilities": ["presentsDialogs": true]]) != nil)
        }
        // Before the lock nothing is measured, so the first pick may take as long as a loaded
        // machine makes it. (CI once saw it fail under AddressSanitizer, without a word on what
        // came back or when; it says both now.)
        let picked = try pick(scratch.url("notes.txt"), with: writer, timeout: 30)

        // Another process takes the database's write lock and holds it.
        let lock = try DatabaseLock(scratch.path("state").appending("state.sqlite3"), seconds: Self.lockSeconds)
        let lockedAt = monotonicNanoseconds()

        // The writer asks for a bookmark, which must be durable before it is answered.
        let bookmarkRequest = writer.sendRequest("createBookmark", ["url": .string(picked)])

        // Meanwhile both clients are answered at once: pings, and a whole dialog's life.
        var slowest: UInt64 = 0
        func timed(_ body: () -> Void) {
            let start = monotonicNanoseconds()
            body()
            slowest = max(slowest, monotonicNanoseconds() - start)
        }
        for client in [writer, other, writer, other] {
            timed { #expect(client.call("ping", [:]) == [:]) }
        }
        for client in [other, writer] {
            timed {
                let id = client.call("presentImporter", ["allowedContentTypes": ["public.item"]])?["dialogId"]
                #expect(id != nil)
                #expect(client.call("cancel", ["dialogId": id ?? .null])?["cancelled"] == true)
            }
        }
        timed { #expect(try! pick(scratch.url("notes.txt"), with: other) == picked) }
        let waitedMilliseconds = Double(slowest) / 1e6
        // Well under the lock's time: none of it waited for the lock.
        #expect(waitedMilliseconds < 1000, "a request waited \(waitedMilliseconds) ms while the database was locked")
        #expect(Double(monotonicNanoseconds() - lockedAt) / 1e9 < Self.lockSeconds, "the checks ran while the lock was held")

        // The bookmark is answered once the lock is gone, not refused.
        let bookmark = writer.response(to: bookmarkRequest, timeout: 40)
        #expect(bookmark?["result"]?["bookmark"]?.stringValue != nil, "\(String(describing: bookmark))")
        #expect(Double(monotonicNanoseconds() - lockedAt) / 1e9 >= Self.lockSeconds - 0.5, "the bookmark waited for the lock")
        for client in [writer, other] { #expect(client.shutdownAndExit() == 0) }
        withExtendedLifetime(lock) {}
    }

    /// Many clients' bookmarks waiting for the locked database at once (more than the server
    /// had threads for such work) delay no other client's dialogs: one is presented, cancelled
    /// and its ending delivered, and another picks a file, at once.
    @Test func manyRequestsWaitingForTheLockStarveNoOtherClientsDialogs() throws {
        let (scratch, server) = try serverBesideANote()
        let waiting = (0..<48).map { _ in WireClient.inProcess(sharing: server) }
        let other = WireClient.inProcess(sharing: server)
        var picks: [String] = []
        for client in waiting + [other] {
            #expect(client.initialize(["clientInfo": ["name": "locked-store"], "capabilities": ["presentsDialogs": true]]) != nil)
        }
        for client in waiting { picks.append(try pick(scratch.url("notes.txt"), with: client, timeout: 30)) }
        let lock = try DatabaseLock(scratch.path("state").appending("state.sqlite3"), seconds: Self.lockSeconds)
        let lockedAt = monotonicNanoseconds()
        let requests = zip(waiting, picks).map { client, picked in client.sendRequest("createBookmark", ["url": .string(picked)]) }
        for client in waiting { #expect(client.call("ping", [:]) == [:]) }  // every bookmark was read

        let start = monotonicNanoseconds()
        let id = other.call("presentImporter", ["allowedContentTypes": ["public.item"]])?["dialogId"]
        #expect(id != nil)
        #expect(other.call("cancel", ["dialogId": id ?? .null])?["cancelled"] == true)
        #expect(other.notification("dialog/cancelled") { $0["params"]?["dialogId"] == id } != nil)
        #expect(try pick(scratch.url("notes.txt"), with: other) == picks.first)
        let waitedMilliseconds = Double(monotonicNanoseconds() - start) / 1e6
        #expect(waitedMilliseconds < 1000, "a dialog waited \(waitedMilliseconds) ms behind \(waiting.count) bookmarks waiting for the lock")
        #expect(Double(monotonicNanoseconds() - lockedAt) / 1e9 < Self.lockSeconds, "the checks ran while the lock was held")

        for (client, request) in zip(waiting, requests) {
            let answer = client.response(to: request, timeout: 40)
            #expect(answer?["result"]?["bookmark"]?.stringValue != nil, "\(String(describing: answer))")
        }
        for client in waiting + [other] { #expect(client.shutdownAndExit() == 0) }
        withExtendedLifetime(lock) {}
    }

    /// The session ends (end of input) while a request waits for the locked database: it is
    /// not left unanswered. The session waits 2 s for what is in flight, then answers what is
    /// still waiting `-32800`, before the output closes.
    @Test func aRequestStillWaitingWhenTheSessionEndsIsAnswered() throws {
        let (client, picked, held) = try pickedThenLocked(seconds: Self.lockSeconds)
        let lockedAt = monotonicNanoseconds()
        let bookmarkRequest = client.sendRequest("createBookmark", ["url": .string(picked)])
        #expect(client.call("ping", [:]) == [:])  // the bookmark's request was read and is waiting
        client.closeInput()
        let answer = client.response(to: bookmarkRequest, timeout: 4)
        #expect(answer?["error"]?["code"] == -32800, "\(String(describing: answer))")
        #expect(answer?["error"]?["message"]?.stringValue?.contains("createBookmark") == true)
        #expect(client.waitForExit(timeout: 4) == 1)
        #expect(Double(monotonicNanoseconds() - lockedAt) / 1e9 < Self.lockSeconds, "answered while the lock was held")
        withExtendedLifetime(held) {}
    }

    /// Requests in flight when the session ends are finished before the client's grants go: a
    /// bookmark queued behind one waiting for the lock (the lock held 1 s, within the session's
    /// 2 s for what is in flight) still finds its grant, and is made.
    @Test func requestsInFlightAtTheEndStillFindTheirGrants() throws {
        let (client, picked, held) = try pickedThenLocked(seconds: 1)
        // One session's file requests run one after the other: the second waits behind the first.
        let requests = [client.sendRequest("createBookmark", ["url": .string(picked)]),
                        client.sendRequest("createBookmark", ["url": .string(picked)])]
        #expect(client.call("ping", [:]) == [:])
        client.closeInput()
        for request in requests {
            let answer = client.response(to: request, timeout: 4)
            #expect(answer?["result"]?["bookmark"]?.stringValue != nil, "\(String(describing: answer))")
        }
        #expect(client.waitForExit(timeout: 4) == 1)
        withExtendedLifetime(held) {}
    }

    /// A session of its own server that picked a file, then its database locked by another
    /// process for `seconds`: the client, the picked URL, and what must outlive the test (the
    /// lock, and the scratch folder, removed when it goes).
    private func pickedThenLocked(seconds: Double) throws -> (WireClient, String, (DatabaseLock, ScratchDirectory)) {
        let scratch = ScratchDirectory()
        scratch.write("notes.txt", "notes")
        var options = ServerOptions()
        options.stateDirectory = scratch.path("state")
        let client = WireClient.inProcess(options)
        #expect(client.initialize(["clientInfo": ["name": "locked-store"], "capabilities": ["presentsDialogs": true]]) != nil)
        let picked = try pick(scratch.url("notes.txt"), with: client, timeout: 30)
        let lock = try DatabaseLock(scratch.path("state").appending("state.sqlite3"), seconds: seconds)
        return (client, picked, (lock, scratch))
    }

    /// A scratch folder holding `notes.txt` and the state directory of a server serving
    /// in-process clients (`WireClient.inProcess(sharing:)`).
    private func serverBesideANote() throws -> (ScratchDirectory, Server) {
        let scratch = ScratchDirectory()
        scratch.write("notes.txt", "notes")
        var options = ServerOptions()
        options.stateDirectory = scratch.path("state")
        return (scratch, try Server(options: options, logger: .silent))
    }

    /// Picks `url` in a frontend importer and returns the URL the dialog completed with. A
    /// failure says what came back, and after how long: an error, or nothing in `timeout`.
    private func pick(_ url: String, with client: WireClient, timeout: Double = 10) throws -> String {
        let start = monotonicNanoseconds()
        func waited() -> String { "after \((monotonicNanoseconds() - start) / 1_000_000) ms" }
        let presented = client.request("presentImporter", ["allowedContentTypes": ["public.item"]], timeout: timeout)
        let id = try #require(presented?["result"]?["dialogId"], "presentImporter: \(String(describing: presented)) \(waited())")
        #expect(client.call("dialog/choose", ["dialogId": id, "urls": [.string(url)]], timeout: timeout) == [:])
        let completed = client.notification("dialog/completed", timeout: timeout) { $0["params"]?["dialogId"] == id }
        return try #require(completed?["params"]?["urls"]?.arrayValue?.first?.stringValue, "dialog/completed: \(String(describing: completed)) \(waited())")
    }
}
