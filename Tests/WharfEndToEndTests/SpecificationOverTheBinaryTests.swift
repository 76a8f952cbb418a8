import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfTestSupport

/// The JSON-RPC 2.0 specification's examples, replayed against the built binary. Wharf has no
/// `subtract` or `sum`, so where the specification's server answers with a result Wharf answers
/// -32601; everything the examples say about errors, notifications and batches holds as written.
/// (The examples' results are checked against a bare `Connection` in WharfJSONRPCTests.)
@Suite struct SpecificationExamplesOverTheBinary {
    func client() throws -> WireClient {
        let client = try WireClient.spawn()
        client.initialize()
        return client
    }

    func exchange(_ client: WireClient, _ text: String) -> JSON? {
        client.sendBody(Array(text.utf8))
        return client.nextMessage()
    }

    @Test func notificationsAreNeverAnswered() throws {
        let client = try client()
        client.sendBody(Array(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#.utf8))
        client.sendBody(Array(#"{"jsonrpc": "2.0", "method": "foobar"}"#.utf8))
        client.settle()
        #expect(client.messages.count == 2, "initialize and ping only")
    }

    @Test func aNonExistentMethod() throws {
        let client = try client()
        let response = exchange(client, #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#)
        #expect(response?["error"]?["code"] == -32601)
        #expect(response?["id"] == "1")
    }

    @Test func invalidJSONAndInvalidRequestObjects() throws {
        let client = try client()
        let parse = exchange(client, #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        #expect(parse?["error"]?["code"] == -32700)
        #expect(parse?["id"] == .null)
        let invalid = exchange(client, #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)
        #expect(invalid?["error"]?["code"] == -32600)
        #expect(invalid?["id"] == .null)
    }

    @Test func batchesAsTheSpecificationShowsThem() throws {
        let client = try client()
        #expect(exchange(client, #"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#)?["error"]?["code"] == -32700)
        let empty = exchange(client, "[]")
        #expect(empty?.objectValue != nil && empty?["error"]?["code"] == -32600)
        #expect(exchange(client, "[1]")?.arrayValue?.map { $0["error"]?["code"] } == [-32600])
        #expect(exchange(client, "[1,2,3]")?.arrayValue?.map { $0["error"]?["code"] } == [-32600, -32600, -32600])
        let mixed = exchange(client, """
            [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
             {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
             {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
             {"foo": "boo"},
             {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
             {"jsonrpc": "2.0", "method": "ping", "id": "9"}]
            """)?.arrayValue ?? []
        #expect(mixed.count == 5, "one response per request, none for the notification")
        #expect(mixed.contains { $0["id"] == "9" && $0["result"] == [:] })
        #expect(mixed.contains { $0["id"] == .null && $0["error"]?["code"] == -32600 })
        #expect(mixed.filter { $0["error"]?["code"] == -32601 }.compactMap { $0["id"]?.stringValue }.sorted() == ["1", "2", "5"])
        client.sendBody(Array(#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#.utf8))
        client.settle()
        #expect(client.messages.count == 7, "a batch of notifications gets nothing back")
    }

    @Test(arguments: [
        ("1", JSON.null), ("null", .null), (#""x""#, .null), (#"{"method":1}"#, .null),
        (#"{"id":1,"method":"ping"}"#, .int(1)),
        (#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#, .int(2)),
        (#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, .null),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, .null),
        (#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, .null),
        (#"{"jsonrpc":"2.0","id":4,"method":"ping","params":7}"#, .int(4)),
        (#"{"jsonrpc":"2.0","id":"s","method":"ping","params":"x"}"#, .string("s")),
    ])
    func whatIsNotARequestIsAnInvalidRequest(text: String, id: JSON) throws {
        let client = try client()
        let response = exchange(client, text)
        #expect(response?["error"]?["code"] == -32600, "\(text)")
        #expect(response?["id"] == id, "\(text)")
    }

    @Test func idsComeBackWithTheirTypeAndExactDigits() throws {
        let client = try client()
        #expect(exchange(client, #"{"jsonrpc":"2.0","id":"1","method":"ping"}"#)?["id"] == .string("1"))
        let big = exchange(client, #"{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}"#)
        #expect(big?["id"] == .int(9_007_199_254_740_993))
        let null = exchange(client, #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)
        #expect(null?["id"] == .null)
        #expect(null?["result"] == [:])
        // A fraction JSON-RPC advises against is still a number: echoed, and the schema allows it.
        #expect(exchange(client, #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)?["id"] == .double(1.5))
    }

    @Test func cancelRequestAnswersAPendingRequestOnce() throws {
        let big = ScratchDirectory("wharf-cancel")
        for index in 0..<5_000 { close(open(big.file("f\(index)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)) }
        let client = try frontend()
        let dialog = try #require(client.present(["allowedContentTypes": ["public.item"], "options": ["defaultDirectory": .string(big.directory)]]))
        var cancelled = 0
        for _ in 0..<5 {
            // Listing 5,000 entries (milliseconds) takes far longer than the cancellation, written
            // right behind the request, takes to reach the read loop (microseconds).
            let id = client.sendRequest("dialog/list", ["dialogId": .string(dialog), "limit": 1])
            client.notify("$/cancelRequest", ["id": id])
            let response = try #require(client.response(to: id, timeout: 60))
            if response["error"]?["code"] == -32800 { cancelled += 1 } else { #expect(response["result"] != nil) }
            client.settle()
            #expect(client.messages.filter { $0["id"] == id }.count == 1, "exactly one response")
        }
        #expect(cancelled > 0)
    }
}
