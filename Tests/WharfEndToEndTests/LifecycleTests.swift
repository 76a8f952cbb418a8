import Glibc
import Testing
import WharfJSON
import WharfServer
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// The LSP lifecycle, over real pipes to the built `wharf` binary.
@Suite struct Lifecycle {
    @Test func initializeDescribesTheServer() throws {
        let client = try WireClient.spawn()
        let result = client.initialize()
        #expect(result?["serverInfo"]?["name"] == "wharf")
        #expect(result?["serverInfo"]?["version"]?.stringValue?.isEmpty == false)
        #expect(result?["protocolVersion"]?.stringValue != nil)
        #expect(result?["capabilities"]?.objectValue != nil)
        #expect(client.shutdownAndExit() == 0)
        #expect(client.protocolProblems.isEmpty)
    }

    @Test func requestsBeforeInitializeGetServerNotInitialized() throws {
        let client = try WireClient.spawn()
        let response = client.request("ping", [:])
        #expect(response?["error"]?["code"] == -32002)
        #expect(client.initialize() != nil)
    }

    @Test func notificationsBeforeInitializeAreDropped() throws {
        let client = try WireClient.spawn()
        client.notify("$/setTrace", ["value": "verbose"])
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        // Had $/setTrace been honoured, the ping would have been traced.
        #expect(client.messages.allSatisfy { $0["method"] != "$/logTrace" })
    }

    @Test func initializeTwiceIsAnInvalidRequest() throws {
        let client = try WireClient.spawn()
        client.initialize()
        #expect(client.request("initialize", [:])?["error"]?["code"] == -32600)
    }

    @Test func shutdownAnswersNullThenRequestsAreRefused() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let response = client.request("shutdown")
        #expect(response?["result"] == .null)
        #expect(response?.objectValue?.keys.contains("result") == true)
        #expect(client.request("ping", [:])?["error"]?["code"] == -32600)
        client.notify("exit")
        #expect(client.waitForExit() == 0)
    }

    @Test func exitWithoutShutdownExitsOne() throws {
        let client = try WireClient.spawn()
        client.initialize()
        client.notify("exit")
        #expect(client.waitForExit() == 1)
    }

    @Test func exitBeforeInitializeExitsOne() throws {
        let client = try WireClient.spawn()
        client.notify("exit")
        #expect(client.waitForExit() == 1)
    }

    @Test func endOfInputAfterShutdownExitsZero() throws {
        let client = try WireClient.spawn()
        client.initialize()
        _ = client.request("shutdown")
        client.closeInput()
        #expect(client.waitForExit() == 0)
    }

    @Test func endOfInputWithoutShutdownExitsOneAfterAnsweringEverything() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let ids = (0..<200).map { _ in client.sendRequest("ping", [:]) }
        client.closeInput()
        #expect(client.waitForExit() == 1)
        #expect(client.waitForEndOfOutput())
        for id in ids { #expect(client.response(to: id, timeout: 0)?["result"] == [:]) }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalsEndTheServerAsEndOfInputDoes(signal: Int32) throws {
        let client = try WireClient.spawn()
        client.initialize()
        let child = try #require(client.process)
        child.kill(signal)
        #expect(client.waitForExit() == 1)

        let polite = try WireClient.spawn()
        polite.initialize()
        _ = polite.request("shutdown")
        let second = try #require(polite.process)
        second.kill(signal)
        #expect(polite.waitForExit() == 0)
    }

    @Test func aSignalInTheFirstMomentsIsNotLost() throws {
        for _ in 0..<20 {
            let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--state-dir", ":memory:"])
            child.kill(SIGTERM)
            // Ends as end of input does (1); a signal that beats even `main` kills the process
            // by default (143). Never ignored, never hanging.
            let code = child.waitForExit(seconds: 5)
            #expect(code == 1 || code == 128 + SIGTERM)
        }
    }

    @Test func theServerEndsWhenTheProcessNamedInInitializeDies() throws {
        let parent = try ChildProcess(path: "/bin/sleep", arguments: ["60"])
        let client = try WireClient.spawn()
        client.initialize(["processId": .int(Int64(parent.pid)), "clientInfo": ["name": "orphan-test"]])
        #expect(client.call("ping", [:]) == [:])
        parent.kill()
        _ = parent.waitForExit(seconds: 5)
        #expect(client.waitForExit(timeout: 5) == 1)
    }

    /// A `processId` that is no process wharf can see (an editor in another PID namespace, a
    /// Flatpak's or a container's, names its own pid) is logged and not watched: wharf had
    /// answered `initialize` and then ended 200 ms later, as if that editor had died.
    @Test func aProcessIdThatIsNoVisibleProcessIsNotWatched() throws {
        let client = try WireClient.spawn()
        let unseen: Int64 = 4_194_304  // PID_MAX_LIMIT: no process has it on any machine
        #expect(client.initialize(["processId": .int(unseen), "clientInfo": ["name": "namespaced"]]) != nil)
        ProcessControl.sleep(milliseconds: 600)
        #expect(client.call("ping", [:]) == [:], "wharf ended")
        #expect(client.process?.errorsSoFar().contains("processId 4194304 is no process this wharf can see") == true)
        #expect(client.shutdownAndExit() == 0)
    }

    @Test func aSessionThatOpensNoDialogNeverOpensTheStateStore() throws {
        let state = ScratchDirectory("wharf-state")
        let client = try WireClient.spawn(["--state-dir", state.path.description])
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        #expect(state.contents().isEmpty, "no database and no in-use marker: \(state.contents())")
        #expect(client.shutdownAndExit() == 0)
        #expect(state.contents().isEmpty)
    }

    @Test func aSessionThatGrantsAFileOpensTheStoreAndClosesItProperly() throws {
        let scratch = ScratchDirectory(files: ["notes.txt"])
        let state = ScratchDirectory("wharf-state")
        let client = try scripted([["choose": [.string(scratch.file("notes.txt"))]]], in: scratch,
                                  arguments: ["--state-dir", state.path.description])
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        #expect(client.ending(of: id)?["method"] == "dialog/completed")
        // The grant is written behind, within milliseconds; the store is marked in use meanwhile.
        let deadline = Deadline(secondsFromNow: 10)
        while state.contents("running").count != 1 && !deadline.hasPassed { usleep(5_000) }
        #expect(state.contents("running").count == 1)
        #expect(client.shutdownAndExit() == 0)
        #expect(state.exists("state.sqlite3"))
        #expect(state.contents("running").isEmpty, "a process that closes the store removes its marker")
    }

    @Test func pingAnswersAnEmptyObject() throws {
        let client = try WireClient.spawn()
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        #expect(client.call("ping") == [:])
    }
}

/// Method dispatch rules of JSON-RPC and the LSP.
@Suite struct Dispatch {
    @Test func unknownMethodsAndRpcMethodsAreNotFound() throws {
        let client = try WireClient.spawn()
        client.initialize()
        #expect(client.request("no/such/method", [:])?["error"]?["code"] == -32601)
        #expect(client.request("rpc.discover", [:])?["error"]?["code"] == -32601)
        #expect(client.request("$/unknownRequest", [:])?["error"]?["code"] == -32601)
    }

    @Test func unknownNotificationsAreIgnoredSilently() throws {
        let client = try WireClient.spawn()
        client.initialize()
        client.notify("no/such/notification", [:])
        client.notify("$/unknownNotification", [:])
        #expect(client.call("ping", [:]) == [:])
        #expect(client.messages.count == 2, "only the two responses: \(client.messages)")
    }

    @Test func paramsThatAreNotAnObjectAreInvalidParams() throws {
        let client = try WireClient.spawn()
        client.initialize()
        let response = client.request("ping", [1, 2])
        #expect(response?["error"]?["code"] == -32602)
        #expect(response?["error"]?["message"]?.stringValue?.contains("params") == true)
    }

    @Test func initializeParamsAreCheckedFieldByField() throws {
        let client = try WireClient.spawn()
        let response = client.request("initialize", ["processId": "not a number"])
        #expect(response?["error"]?["code"] == -32602)
        #expect(response?["error"]?["message"]?.stringValue?.contains("processId") == true)
    }

    /// An empty name named no one yet became `unnamed-client`, the identity every client
    /// without `clientInfo` shares, and so its bookmarks: it is refused, and the session stays
    /// uninitialized.
    @Test func anEmptyClientNameIsRefusedRatherThanSharingAnIdentity() throws {
        let client = try WireClient.spawn()
        let refused = client.request("initialize", ["clientInfo": ["name": ""]])
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["message"]?.stringValue?.contains("clientInfo.name: must not be empty") == true,
                "\(String(describing: refused))")
        #expect(client.request("ping", [:])?["error"]?["code"] == -32002)
        #expect(client.initialize(["clientInfo": ["name": "named"]])?["client"]?["name"] == "named")
        let unnamed = try WireClient.spawn()
        #expect(unnamed.initialize([:])?["client"]?["name"] == "unnamed-client")
    }

    /// The answers to what is not a request (-32700 for text that is not JSON, -32600 for
    /// JSON that is not a request, an empty batch, an id in use) went out untraced: with
    /// tracing on, every message sent is reported.
    @Test func parseAndInvalidRequestAnswersAreTraced() throws {
        let client = try WireClient.spawn(framing: .ndjson)
        client.initialize()
        client.notify("$/setTrace", ["value": "verbose"])
        #expect(client.call("ping", [:]) == [:])
        for (input, code) in [("{bad", -32700), ("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", -32600), ("[]", -32600)] {
            let before = client.messages.count
            client.sendRaw(input + "\n")
            let answer = client.waitFor { $0["error"]?["code"] == .int(Int64(code)) && $0["id"] == .null }
            #expect(answer != nil, "\(input)")
            #expect(client.call("ping", [:]) == [:])
            let traced = client.messages[before...].filter {
                $0["method"] == "$/logTrace" && $0["params"]?["verbose"]?.stringValue?.contains("\(code)") == true
            }
            #expect(traced.count == 1, "\(input): \(Array(client.messages[before...]))")
        }
    }

    @Test func traceReportsTrafficAsLogTrace() throws {
        let client = try WireClient.spawn()
        client.initialize()
        client.notify("$/setTrace", ["value": "verbose"])
        #expect(client.call("ping", [:]) == [:])
        let trace = client.notification("$/logTrace")
        #expect(trace?["params"]?["message"]?.stringValue?.contains("ping") == true)
        #expect(trace?["params"]?["verbose"] != nil)
        client.notify("$/setTrace", ["value": "off"])
        #expect(client.call("ping", [:]) == [:])
        let count = client.messages.filter { $0["method"] == "$/logTrace" }.count
        #expect(client.call("ping", [:]) == [:])
        #expect(client.messages.filter { $0["method"] == "$/logTrace" }.count == count)
    }

    @Test func inProcessSessionsSpeakTheSameProtocol() {
        var options = ServerOptions()
        options.stateDirectory = ":memory:"
        let client = WireClient.inProcess(options)
        #expect(client.request("ping", [:])?["error"]?["code"] == -32002)
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        #expect(client.shutdownAndExit() == 0)
    }
}
