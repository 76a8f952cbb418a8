import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Bytes no client should send, sent anyway, to the built binary. Each gets a clear error where
/// an id is known and a line on standard error; none kills the server.
@Suite struct BadInput {
    func initialized(_ arguments: [String] = []) throws -> WireClient {
        let client = try WireClient.spawn(arguments)
        client.initialize()
        return client
    }

    /// The server still answers after whatever came before.
    func expectAlive(_ client: WireClient, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(client.call("ping", [:]) == [:], sourceLocation: sourceLocation)
    }

    @Test func invalidUTF8IsAParseError() throws {
        let client = try initialized()
        client.sendBody([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])
        #expect(client.nextMessage()?["error"]?["code"] == -32700)
        expectAlive(client)
    }

    @Test func aRawNULByteAfterAValidValueIsAParseError() throws {
        let client = try initialized()
        client.sendBody(Array(#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#.utf8) + [0x00])
        let response = client.nextMessage()
        #expect(response?["error"]?["code"] == -32700)
        #expect(response?["id"] == .null)
        #expect(client.messages.allSatisfy { $0["id"] != 7 }, "the request before the NUL must not be served")
        expectAlive(client)
    }

    /// pygls, Emacs's jsonrpc.el and jsonrpc-glib send `"params": null` for methods without
    /// params, `shutdown` and `exit` included: it reads as absent.
    @Test func paramsNullReadsAsAbsentForRequestsAndNotifications() throws {
        let client = try WireClient.spawn()
        client.send(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": .null])
        #expect(client.nextMessage()?["result"]?["serverInfo"]?["name"] == "wharf")
        client.send(["jsonrpc": "2.0", "id": 2, "method": "ping", "params": .null])
        #expect(client.nextMessage()?["result"] == [:])
        client.send(["jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": .null])
        #expect(client.nextMessage()?["result"] == .null)
        client.send(["jsonrpc": "2.0", "method": "exit", "params": .null])
        #expect(client.waitForExit() == 0)
    }

    /// Neovim writes an empty Lua table as `[]`: no params, like `null`. A non-empty array is
    /// by-position params, which no Wharf method takes.
    @Test func anEmptyParamsArrayReadsAsAbsentAndANonEmptyOneIsRefused() throws {
        let client = try initialized()
        client.send(["jsonrpc": "2.0", "id": 2, "method": "ping", "params": []])
        #expect(client.nextMessage()?["result"] == [:])
        client.send(["jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]])
        #expect(client.nextMessage()?["error"]?["code"] == -32602)
    }

    @Test func aLoneSurrogateIsAParseError() throws {
        let client = try initialized()
        client.sendBody(Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#.utf8))
        let response = client.nextMessage()
        #expect(response?["error"]?["code"] == -32700)
        #expect(response?["id"] == .null)
        expectAlive(client)
    }

    @Test func nestingBeyondTheLimitIsAParseError() throws {
        let client = try initialized()
        client.sendBody(Array((String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)).utf8))
        #expect(client.nextMessage()?["error"]?["code"] == -32700)
        expectAlive(client)
    }

    @Test func aBadContentLengthIsSkippedAndLogged() throws {
        let client = try initialized()
        client.sendRaw("Content-Length: banana\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"lost\",\"method\":\"ping\"}")
        client.sendRaw("Content-Type: text/plain\r\n\r\n{}")
        expectAlive(client)
        #expect(client.messages.allSatisfy { $0["id"] != "lost" })
        #expect(client.standardError().contains("Content-Length"))
    }

    @Test func aMessageOverTheLimitIsDiscardedAndAnsweredInvalidRequest() throws {
        let client = try initialized(["--max-message-bytes", "1000"])
        let padding = String(repeating: " ", count: 5000)
        client.sendBody(Array(#"{"jsonrpc":"2.0","id":5,"method":"ping"\#(padding)}"#.utf8))
        let response = client.nextMessage()
        #expect(response?["error"]?["code"] == -32600)
        #expect(response?["id"] == .null)
        #expect(response?["error"]?["message"]?.stringValue?.contains("1000") == true)
        expectAlive(client)
    }

    /// 3 bytes of text, `[],`, make two allocations once parsed: 32 MiB of them took 2 GB. A
    /// message holding more than 250,000 values is refused before it is parsed.
    @Test func aMessageOfTooManyValuesIsRefusedUnparsed() throws {
        let client = try initialized()
        let child = try #require(client.process)
        let before = residentKilobytes(child.pid)
        let values = Array(repeating: "[]", count: 2_000_000).joined(separator: ",")
        client.sendBody(Array(#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":[\#(values)]}}"#.utf8))
        let response = client.nextMessage()
        #expect(response?["error"]?["code"] == -32600)
        #expect(response?["error"]?["message"]?.stringValue?.contains("250000 JSON values") == true)
        let grown = residentKilobytes(child.pid) - before
        #expect(grown < 64 * 1024, "the refused message was parsed (grew \(grown) KiB)")
        expectAlive(client)
        // Big messages of few values still go through: commas and brackets inside strings are text.
        let text = String(repeating: "[],\\\",", count: 500_000)
        #expect(client.call("ping", ["padding": .string(text)]) == [:])
    }

    @Test func aHugeDeclaredLengthIsDiscardedWithoutBuffering() throws {
        let client = try initialized(["--max-message-bytes", "1024"])
        let child = try #require(client.process)
        // Measured as growth, not as a total: the sanitizers' builds run this test too, and their
        // shadow memory is part of the total.
        let before = residentKilobytes(child.pid)
        let size = 64 * 1024 * 1024
        client.sendRaw("Content-Length: \(size)\r\n\r\n")
        let chunk = [UInt8](repeating: 0x20, count: 1 << 20)
        for _ in 0..<64 { client.sendRaw(chunk) }
        #expect(client.nextMessage()?["error"]?["code"] == -32600)
        expectAlive(client)
        let grown = residentKilobytes(child.pid) - before
        #expect(grown < 16 * 1024, "the discarded 64 MiB body must not be held in memory (grew \(grown) KiB)")
    }

    @Test func aTruncatedBodyAtEndOfInputExitsNonZeroPromptly() throws {
        let client = try initialized()
        client.sendRaw("Content-Length: 100\r\n\r\n{\"jsonrpc\":")
        client.closeInput()
        // A guard against waiting for the rest of the body, not a timing: generous for the
        // sanitizers' builds, which take longer to exit.
        let code = client.waitForExit(timeout: 10)
        #expect(code != nil && code != 0)
        #expect(client.standardError().contains("middle of a message"))
    }

    @Test func closedStandardOutputEndsTheServerCleanly() throws {
        // No reader thread here: the read end must really be closed for the server to see EPIPE.
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: [])
        child.closeStdout()
        let body = Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.utf8)
        let frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        _ = frame.withUnsafeBytes { write(child.stdin, $0.baseAddress!, $0.count) }
        let code = child.waitForExit(seconds: 10)
        #expect(code == 1, "a clean exit, not death by SIGPIPE (141)")
        #expect(readAll(child.stderr).contains("output closed"))
    }

    /// The output is found closed by a write that is not the read loop's (a dialog's timeout,
    /// here), while the read loop waits for input that the client, still holding our input
    /// open, never sends: the server ends all the same.
    @Test func standardOutputFoundClosedByALaterEventEndsTheServer() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--framing", "ndjson", "--state-dir", ":memory:"])
        func send(_ line: String) throws { try child.send(Array((line + "\n").utf8)) }
        try send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"presentsDialogs":true}}}"#)
        #expect(child.waitForLine(startingWith: "{", timeout: 10) != nil)
        try send(#"{"jsonrpc":"2.0","id":2,"method":"presentImporter","params":{"allowedContentTypes":["public.item"],"options":{"timeoutMs":300}}}"#)
        // The answer and `presenter/show`, then the client stops reading for good.
        #expect(child.waitForLine(startingWith: "{", timeout: 10) != nil)
        #expect(child.waitForLine(startingWith: "{", timeout: 10) != nil)
        child.closeStdout()
        #expect(child.waitForExitOrKill(seconds: 10) == 1, "the server outlived its closed output")
    }

    /// The client closes its end of our output while the server is idle, holding our input
    /// open: nothing is ever written to find it closed, yet the server ends (it ran until its
    /// input closed, holding whatever the session held).
    @Test func standardOutputClosedWhileIdleEndsTheServer() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--framing", "ndjson", "--state-dir", ":memory:"])
        try child.send(Array((#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"# + "\n").utf8))
        #expect(child.waitForLine(startingWith: "{", timeout: 10) != nil)
        child.closeStdout()
        #expect(child.waitForExitOrKill(seconds: 10) == 1, "the server outlived its closed output")
        #expect(readAll(child.stderr).contains("output closed"))
    }

    @Test func aClientThatStopsReadingStopsBeingRead() throws {
        let client = try initialized()
        let child = try #require(client.process)
        // Pings whose answers nobody reads: the server must stop reading instead of buffering
        // every answer, so our writer ends up blocked and the server's memory stays bounded.
        let sent = Locked(0)
        let body = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#.utf8)
        let frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        let batch = Array([[UInt8]](repeating: frame, count: 1000).joined())
        // The writer has a descriptor of its own: it outlives this test (until the killed
        // server's pipe refuses its next write), and `child.stdin`'s number is another file's
        // once the test has let the child go.
        let stdin = try child.stdinCopy()
        startThread {
            for _ in 0..<2000 {
                do throws(SystemError) { try stdin.write(all: batch) } catch { return }
                sent.withValue { $0 += 1000 }
            }
        }
        usleep(3_000_000)
        let sentSoFar = sent.withValue { $0 }
        #expect(sentSoFar < 2_000_000, "the server kept reading although nobody read its answers")
        #expect(residentKilobytes(child.pid) < 120_000)
        child.kill()
    }

    @Test func garbageAndSplitFramesOverRealPipes() throws {
        let client = try initialized()
        let body = Array(#"{"jsonrpc":"2.0","id":"split","method":"ping","params":{}}"#.utf8)
        let frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        for byte in frame {
            client.sendRaw([byte])
            usleep(200)
        }
        #expect(client.response(to: "split")?["result"] == [:])
        let merged = (1...20).map { id -> [UInt8] in
            let body = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#.utf8)
            return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }.joined()
        client.sendRaw(Array(merged))
        for id in 1...20 { #expect(client.response(to: .int(Int64(id)))?["result"] == [:]) }
    }

    @Test func strayWritesToDescriptorOneGoToStandardError() throws {
        // The protocol has a private copy of standard output; descriptor 1 is standard error,
        // so no library's print can corrupt the stream.
        let client = try initialized()
        let child = try #require(client.process)
        func target(_ descriptor: Int) -> String? { symlinkTarget(FilePath("/proc/\(child.pid)/fd/\(descriptor)")!) }
        #expect(target(1) != nil)
        #expect(target(1) == target(2))
        expectAlive(client)
    }

    @Test func nothingButProtocolReachesStandardOutput() throws {
        let client = try initialized(["--log-level", "debug"])
        client.sendRaw("garbage\r\n\r\n")
        client.sendBody(Array("not json".utf8))
        expectAlive(client)
        #expect(client.shutdownAndExit() == 0)
        #expect(client.protocolProblems.isEmpty, "\(client.protocolProblems)")
        #expect(client.standardError().contains("debug"))
    }
}

/// Newline-delimited JSON for simple harnesses, and forced framings.
@Suite struct Framings {
    @Test func autoDetectsNDJSONAndRepliesInKind() throws {
        let client = try WireClient.spawn(framing: .ndjson)
        client.initialize()
        #expect(client.call("ping", [:]) == [:])
        #expect(client.shutdownAndExit() == 0)
        #expect(client.protocolProblems.isEmpty)
    }

    @Test func forcedNDJSONAcceptsBlankLinesAndCRLF() throws {
        let client = try WireClient.spawn(["--framing", "ndjson"], framing: .ndjson)
        client.sendRaw("\n\r\n" + #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"# + "\r\n")
        #expect(client.nextMessage()?["result"]?["serverInfo"]?["name"] == "wharf")
    }

    @Test func forcedLSPFramingDoesNotTakeBareJSON() throws {
        let client = try WireClient.spawn(["--framing", "lsp"])
        client.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"# + "\n")
        client.initialize()
        #expect(client.messages.count == 1, "the bare line was skipped as garbage: \(client.messages)")
    }

    @Test func batchesOverTheBinary() throws {
        let client = try WireClient.spawn()
        client.initialize()
        client.sendBody(Array("[]".utf8))
        #expect(client.nextMessage()?["error"]?["code"] == -32600)
        client.sendBody(Array(#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"initialized"},7]"#.utf8))
        let batch = client.nextMessage()?.arrayValue
        #expect(batch?.count == 2)
        #expect(batch?.contains { $0["id"] == 1 && $0["result"] == [:] } == true)
        #expect(batch?.contains { $0["id"] == .null && $0["error"]?["code"] == -32600 } == true)
        client.sendBody(Array(#"[{"jsonrpc":"2.0","method":"initialized"}]"#.utf8))
        #expect(client.call("ping", [:]) == [:])
        #expect(client.messages.count == 4)
    }
}

/// The command line.
@Suite struct CommandLineInterface {
    @Test func helpListsEveryFlag() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--help"])
        #expect(child.waitForExit(seconds: 5) == 0)
        let text = readAll(child.stdout)
        for flag in ["--stdio", "--framing", "--max-message-bytes", "--log-level", "--log-file", "--version"] {
            #expect(text.contains(flag), "--help does not mention \(flag)")
        }
    }

    @Test func anUnknownFlagIsAUsageError() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--frobnicate"])
        #expect(child.waitForExit(seconds: 5) == 2)
        #expect(readAll(child.stderr).contains("--frobnicate"))
    }

    @Test func aBadFlagValueIsAUsageError() throws {
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--framing", "xml"])
        #expect(child.waitForExit(seconds: 5) == 2)
        #expect(readAll(child.stderr).contains("--framing"))
    }

    @Test(arguments: [
        ("missing.json", nil),
        ("bad.json", "[{\"choose\": "),
        ("unknown-step.json", "[{\"fly\": true}]"),
        ("misspelt.json", "[{\"expect\": {\"titel\": \"x\"}}]"),
    ] as [(String, String?)])
    func aBadScriptIsRefusedAtStartWithTheReason(name: String, contents: String?) throws {
        let scratch = ScratchDirectory()
        if let contents { scratch.write(name, contents) }
        let child = try ChildProcess(path: wharfExecutablePath(), arguments: ["--presenter", "script:" + scratch.file(name)])
        #expect(child.waitForExit(seconds: 10) == 2)
        let message = readAll(child.stderr)
        #expect(message.contains(name), "\(message)")
    }

    @Test func logsCanGoToAFile() throws {
        let path = "/tmp/wharf-log-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(path) }
        let client = try WireClient.spawn(["--log-file", path, "--log-level", "info"])
        client.initialize()
        #expect(client.shutdownAndExit() == 0)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        #expect(readAll(descriptor).contains("exit code 0"))
    }
}

/// Everything `descriptor` (a child's pipe, or a file a test opened) yields until its end.
func readAll(_ descriptor: Int32) -> String {
    let borrowed = FileDescriptor(taking: descriptor)
    defer { borrowed.relinquish() }  // its owner closes it
    return String(decoding: (try? borrowed.readToEnd()) ?? [], as: UTF8.self)
}

/// VmRSS of a process, in KiB.
func residentKilobytes(_ pid: pid_t) -> Int {
    let descriptor = open("/proc/\(pid)/status", O_RDONLY)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    for line in readAll(descriptor).split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}
