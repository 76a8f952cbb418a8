import Testing
import WharfJSON
import WharfJSONRPC
import WharfServerTestSupport
import WharfTestSupport

/// Inputs the fuzzer (Sources/WharfFuzz, `make fuzz`) found to break a promise, fed to the built
/// binary so that the fix stays fixed. Each test names the promise; the comment gives the input
/// as the fuzzer saved it.
@Suite struct FuzzFindings {
    /// Found 2026-11-29: an NDJSON stream whose only line has no newline before end of input was
    /// answered with an LSP `Content-Length` frame, because the reply's framing was adopted only
    /// when a message was complete before end of input. Replies must use the client's framing.
    @Test func aLastNDJSONLineWithoutNewlineIsAnsweredInNDJSON() throws {
        let client = try WireClient.spawn(framing: .ndjson)
        client.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        client.closeInput()
        let reply = client.nextMessage()
        let status = client.waitForExit()
        // No answer at all once failed CI (exit status 1, nothing written): say what the server logged.
        #expect(reply?["id"] == 1, "no answer; the server exited \(String(describing: status)) and logged: \(client.standardError())")
        #expect(reply?["error"]?["code"] == -32002)
        #expect(status == 1)
        #expect(client.protocolProblems == [])
    }

    /// The input the fuzzer saved (crash-a345cff5…): invalid JSON on one unterminated NDJSON line.
    @Test func theSavedInputGetsAParseErrorInNDJSON() throws {
        let client = try WireClient.spawn(framing: .ndjson)
        client.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"initialize","par{"jsonrpc":"2.0","id":1,"methze","params":{"clientInfo":{ContentContent-Le"\u000-L0"en"#)
        client.closeInput()
        let reply = client.nextMessage()
        #expect(reply?["id"] == .null)
        #expect(reply?["error"]?["code"] == -32700)
        #expect(client.waitForExit() == 1)
        #expect(client.protocolProblems == [])
    }
}
