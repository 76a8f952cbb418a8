import Testing
import WharfJSON
import WharfServer
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// The server in this process, over real pipes: the same protocol as the binary, with the
/// session reachable for inspection.
@Suite struct InProcessSession {
    func options() -> ServerOptions {
        var options = ServerOptions()
        options.stateDirectory = ":memory:"
        return options
    }

    @Test func theLifecycleRunsInProcess() throws {
        let client = WireClient.inProcess(options())
        #expect(client.request("ping", [:])?["error"]?["code"] == -32002)
        #expect(client.initialize(["clientInfo": ["name": "in-process"]])?["serverInfo"]?["name"] == "wharf")
        let server = try #require(client.inProcessServer)
        #expect(server.session.appIdentity == "in-process")
        #expect(client.call("ping", [:]) == [:])
        #expect(client.shutdownAndExit() == 0)
    }

    @Test func endOfInputWithoutShutdownEndsWithOne() {
        let client = WireClient.inProcess(options())
        client.initialize()
        client.closeInput()
        #expect(client.waitForExit() == 1)
    }

    @Test func aFrontendDialogEndsExactlyOnceInProcess() {
        let scratch = ScratchDirectory()
        scratch.write("a.txt", "a")
        let client = WireClient.inProcess(options())
        client.initialize(["capabilities": ["presentsDialogs": true]])
        let id = client.call("presentImporter", ["allowedContentTypes": ["public.plain-text"]])?["dialogId"]
        #expect(id != nil)
        #expect(client.notification("presenter/show")?["params"]?["dialogId"] == id)
        #expect(client.call("dialog/choose", ["dialogId": id ?? .null, "urls": [.string(scratch.url("a.txt"))]]) == [:])
        let completed = client.notification("dialog/completed")
        #expect(completed?["params"]?["urls"] == [.string(scratch.url("a.txt"))])
        _ = client.call("ping", [:])
        #expect(client.messages.filter { $0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled" }.count == 1)
        #expect(client.shutdownAndExit() == 0)
    }

    @Test func aMoverMovesAGrantedFileInProcess() throws {
        let scratch = ScratchDirectory()
        scratch.write("a.txt", "a")
        scratch.makeDirectory("dst")
        let client = WireClient.inProcess(options())
        client.initialize(["capabilities": ["presentsDialogs": true]])
        let picked = try #require(client.call("presentImporter", ["allowedContentTypes": ["public.plain-text"]])?["dialogId"])
        #expect(client.call("dialog/choose", ["dialogId": picked, "urls": [.string(scratch.url("a.txt"))]]) == [:])
        #expect(client.notification("dialog/completed")?["params"]?["urls"] == [.string(scratch.url("a.txt"))])
        let mover = try #require(client.call("presentMover", ["urls": [.string(scratch.url("a.txt"))]])?["dialogId"])
        #expect(client.notification("presenter/show", where: { $0["params"]?["dialogId"] == mover })?["params"]?["kind"] == "mover")
        #expect(client.call("dialog/choose", ["dialogId": mover, "url": .string(scratch.url("dst"))]) == [:])
        let completed = client.notification("dialog/completed", where: { $0["params"]?["dialogId"] == mover })
        #expect(completed?["params"]?["urls"] == [.string(scratch.url("dst/a.txt"))])
        #expect(client.call("resolveAccess", ["url": .string(scratch.url("dst/a.txt"))])?["readOnly"] == true)
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("a.txt"))])?["error"]?["code"] == -32020)
        #expect(client.shutdownAndExit() == 0)
    }

    /// `exit` inside a batch ends the session while the batch is being read: the requests before
    /// it were answered, and those answers are owed, as the batch's one array, before the end.
    @Test func aBatchThatEndsWithExitIsStillAnswered() {
        let client = WireClient.inProcess(options())
        client.initialize()
        client.sendBody(Array(#"""
            [{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"shutdown"},
             {"jsonrpc":"2.0","method":"exit"}]
            """#.utf8))
        #expect(client.waitForExit() == 0)
        let batch = client.nextMessage(timeout: 1)?.arrayValue
        #expect(batch?.count == 2, "the batch's answers: \(client.messages)")
        #expect(batch?.contains { $0["id"] == 1 && $0["result"] == [:] } == true)
        #expect(batch?.contains { $0["id"] == 2 && $0["result"] == .null } == true)
    }

    @Test func pipelinedRequestsAllGetAnswers() {
        let client = WireClient.inProcess(options())
        client.initialize()
        let ids = (0..<500).map { _ in client.sendRequest("ping", [:]) }
        for id in ids { #expect(client.response(to: id)?["result"] == [:]) }
        #expect(client.shutdownAndExit() == 0)
    }
}
