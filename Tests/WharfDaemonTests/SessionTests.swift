import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// Many clients in one daemon: each sees only its own, none can starve the others, and a
/// SIGTERM gives every one what it is owed.
@Suite struct Sessions {
    @Test func aConnectionsDialogsLeasesAndGrantsAreInvisibleToTheOthers() throws {
        let scratch = ScratchDirectory("wharf-sessions")
        scratch.write("mine.txt", "mine")
        let daemon = try scriptedDaemon([["choose": [.string(scratch.file("mine.txt"))]]])
        // The same app and name: only the session differs.
        let owner = try daemon.client("editor")
        let other = try daemon.client("editor")
        let dialog = try #require(owner.presentImporter())
        let url = try #require(owner.ending(of: dialog)?["params"]?["urls"]?.arrayValue?.first)
        let lease = try #require(owner.call("resolveAccess", ["url": url])?["accessId"])

        #expect(other.errorCode("cancel", ["dialogId": .string(dialog)]) == -32013)
        #expect(other.errorCode("resolveAccess", ["url": url]) == -32020, "a grant belongs to the session that got it")
        #expect(other.errorCode("releaseAccess", ["accessId": lease]) == -32022)
        #expect(other.errorCode("readFile", ["accessId": lease]) == -32022)
        #expect(other.call("listAccess", [:])?["entries"] == [])
        #expect(owner.call("listAccess", [:])?["entries"]?.arrayValue?.count == 1)
        other.settle()
        #expect(!other.messages.contains { $0["params"]?["dialogId"] == .string(dialog) })

        // Gone: its lease is released and its grant dropped, whatever it left open.
        // The store hears of grants within milliseconds (they are written behind).
        let listed = { run(wharfExecutablePath(), ["access", "list"], environment: daemon.environment).output }
        #expect(eventually { listed().contains("mine.txt") })
        owner.disconnect()
        #expect(owner.waitForEndOfOutput())
        #expect(eventually { !listed().contains("mine.txt") }, "\(listed())")
    }

    /// SIGTERM with 50 clients connected, each with a dialog open at the presenter connection:
    /// every dialog ends with `disconnected`, every client reads its last messages and then the
    /// end, the presenter is told to take each dialog down, and the daemon exits 0.
    @Test func sigtermWithFiftyClientsGivesEachWhatItIsOwed() throws {
        let daemon = try bareDaemon()
        let presenter = try daemon.client("picker", role: "presenter")
        let clients = try (0..<50).map { try daemon.client("client-\($0)") }
        var dialogs: [String] = []
        for client in clients { dialogs.append(try #require(client.presentImporter())) }
        for _ in dialogs { #expect(presenter.notification("presenter/show") != nil) }

        daemon.terminate()
        for (client, dialog) in zip(clients, dialogs) {
            let ending = try #require(client.ending(of: dialog))
            #expect(ending["method"] == "dialog/cancelled")
            #expect(ending["params"]?["reason"] == "disconnected")
            #expect(client.waitForEndOfOutput())
            let events = client.messages.filter { $0["params"]?["dialogId"] == .string(dialog) && $0["id"] == nil }
            #expect(events.compactMap { $0["method"]?.stringValue } == ["dialog/presentationChanged", "dialog/cancelled"])
        }
        #expect(presenter.waitForEndOfOutput())
        let hidden = Set(presenter.messages.filter { $0["method"] == "presenter/hide" }.compactMap { $0["params"]?["dialogId"]?.stringValue })
        #expect(hidden == Set(dialogs))
        #expect(daemon.waitForExit() == 0)
    }

    /// Clients that ask and never read stop being read once their output budget is full; no
    /// thread waits on them, so everyone else is served as usual.
    @Test func clientsThatStopReadingDoNotStarveTheOthers() throws {
        let scratch = ScratchDirectory("wharf-sessions")
        scratch.write("a.txt", "a")
        let daemon = try scriptedDaemon(.array(Array(repeating: ["choose": [.string(scratch.file("a.txt"))]], count: 5)),
                                        arguments: ["--max-output-bytes-per-client", "65536"])
        // More greedy clients than the daemon's worker threads (32), asking and never reading.
        // Each sends pings with 32 KiB ids (echoed in the answers, so the answers are as large
        // as the questions and cheap to make) until its socket takes no more: then the daemon's
        // side of the socket and the client's output budget are full, and the daemon has
        // stopped reading it. A daemon that went on reading would take questions forever.
        let initialize = Array(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#.utf8) + [0x0A]
        let question = Array(#"{"jsonrpc":"2.0","id":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 10)
            + Array(#"","method":"ping"}"#.utf8) + [0x0A]
        var greedy: [FileDescriptor] = []
        for _ in 0..<34 {
            let socket = try UnixSocket.connect(to: daemon.socketPath)
            try socket.setNonBlocking()
            _ = initialize.withUnsafeBytes { try? socket.writeAvailable(gathering: [$0], offset: 0) }
            greedy.append(socket)
        }
        // Where each client is in its endless run of questions.
        var offsets = [Int](repeating: 0, count: greedy.count)
        var rounds = 0
        while true {
            var taken = 0
            for (index, socket) in greedy.enumerated() {
                let written = question.withUnsafeBytes { once in
                    (try? socket.writeAvailable(gathering: [once, once, once, once, once, once, once, once], offset: offsets[index])) ?? 0
                }
                offsets[index] = (offsets[index] + written) % question.count
                taken += written
            }
            waitUntilIdle(daemon.child.pid)
            if taken == 0 { break }
            rounds += 1
            if rounds == 100 {
                Issue.record("the daemon went on reading clients that read nothing")
                break
            }
        }

        let polite = try daemon.client("polite")
        for _ in 0..<50 { #expect(polite.call("ping", [:], timeout: 60) == [:]) }
        for _ in 0..<5 {
            let dialog = try #require(polite.presentImporter())
            #expect(polite.ending(of: dialog)?["method"] == "dialog/completed")
        }
        for socket in greedy { socket.close() }
        #expect(polite.call("ping", [:]) == [:])
    }

    /// Concurrent clients each running importer cycles against one presenter connection: every
    /// client gets the endings of its own dialogs, each exactly once, and nothing of anyone
    /// else's. (bench/ runs 200 clients × 100 cycles and measures it.)
    @Test func concurrentClientsGetExactlyTheirOwnEndings() throws {
        let clientCount = 20, cycles = 5
        let scratch = ScratchDirectory("wharf-sessions")
        for index in 0..<clientCount { scratch.write("client-\(index).txt", "\(index)") }
        let daemon = try bareDaemon()
        let presenterClient = try daemon.client("picker", role: "presenter")
        // The presenter picks the file named after the client whose dialog it is.
        let presenter = PresenterLoop(presenterClient) { client, show in
            guard let id = show["dialogId"], let name = show["client"]?["name"]?.stringValue else { return }
            client.sendRequest("dialog/choose", ["dialogId": id, "urls": [.string(scratch.url("\(name).txt"))]])
        }
        defer { presenter.stop() }
        let clients = try (0..<clientCount).map { try daemon.client("client-\($0)") }
        let presented = Locked<[Int: [String]]>([:])
        concurrently(clientCount) { index in
            var mine: [String] = []
            for cycle in 0..<cycles {
                let response = clients[index].request("presentImporter", ["allowedContentTypes": ["public.plain-text"]], timeout: 60)
                guard let dialog = response?["result"]?["dialogId"]?.stringValue else {
                    Issue.record("client \(index), cycle \(cycle): \(response?.jsonText ?? "no answer within 60 s")")
                    return
                }
                mine.append(dialog)
                _ = clients[index].ending(of: dialog)
            }
            presented.withValue { $0[index] = mine }
        }
        var allDialogs = Set<String>()
        for (index, client) in clients.enumerated() {
            client.settle()
            let mine = presented.withValue { $0[index] } ?? []
            #expect(mine.count == cycles)
            allDialogs.formUnion(mine)
            let endings = client.messages.filter { $0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled" }
            #expect(endings.count == cycles, "client \(index) got \(endings.count) endings")
            #expect(Set(endings.compactMap { $0["params"]?["dialogId"]?.stringValue }) == Set(mine), "client \(index)")
            for ending in endings {
                #expect(ending["params"]?["urls"] == [.string(scratch.url("client-\(index).txt"))], "client \(index): \(ending)")
            }
            let events = client.messages.filter { $0["id"] == nil }
            #expect(events.allSatisfy { mine.contains($0["params"]?["dialogId"]?.stringValue ?? "") }, "client \(index) saw another's events")
        }
        #expect(allDialogs.count == clientCount * cycles, "dialog ids are unique across the daemon")
        #expect(presenter.shown.withValue { $0.count } == clientCount * cycles)
    }
}
