import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// A bare `Connection` over real pipes serving the methods the JSON-RPC 2.0 specification's
/// examples use (`subtract`, `sum`, `get_data`, `update`, `notify_*`), driven by a test client.
/// The server-side transport must produce exactly the specification's responses.
final class ExampleServer: Sendable {
    let client: WireClient
    let connection: Connection
    let notifications = Locked<[String]>([])
    /// Requests the handler holds without answering, to test cancellation.
    let held = Locked<[Reply]>([])

    init(framing: FramingMode = .lsp) {
        let toServer = try! makePipe(), fromServer = try! makePipe()
        connection = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write),
                                options: .init(framing: framing))
        client = WireClient(writingTo: toServer.write, readingFrom: fromServer.read, framing: framing == .ndjson ? .ndjson : .lsp)
        let notifications = self.notifications, held = self.held
        connection.start(Connection.Handler(
            request: { request, reply in
                let params = request.params
                func number(_ json: JSON?) -> Int64 { json?.intValue ?? 0 }
                switch request.method {
                case "subtract":
                    if case .array(let values)? = params, values.count == 2 {
                        reply.succeed(.int(number(values[0]) - number(values[1])))
                    } else if case .object? = params {
                        reply.succeed(.int(number(params?["minuend"]) - number(params?["subtrahend"])))
                    } else {
                        reply.fail(.invalidParams("subtract takes two numbers"))
                    }
                case "sum":
                    reply.succeed(.int(params?.arrayValue?.reduce(0) { $0 + number($1) } ?? 0))
                case "get_data":
                    reply.succeed(["hello", 5])
                case "hold":
                    held.withValue { $0.append(reply) }
                default:
                    reply.fail(.methodNotFound(request.method))
                }
            },
            notification: { notification in notifications.withValue { $0.append(notification.method) } }
        ), onEnd: { [connection] _ in connection.closeOutput() })
    }

    /// Sends raw JSON text framed, returns the next message the server writes (or nil).
    func exchange(_ text: String, timeout: Double = 5) -> JSON? {
        client.sendBody(Array(text.utf8))
        return client.nextMessage(timeout: timeout)
    }

    /// Sends raw JSON text and asserts that nothing at all comes back.
    func expectSilence(_ text: String) {
        client.sendBody(Array(text.utf8))
        // A ping-like marker proves the server got past the text: its answer must be next.
        client.sendBody(Array(#"{"jsonrpc":"2.0","method":"get_data","id":"marker"}"#.utf8))
        #expect(client.nextMessage()?["id"] == "marker")
    }
}

private func parse(_ text: String) -> JSON { try! JSON.parse(text) }

/// Responses in a batch may come in any order; compare as sets. Error messages are ours to
/// word, so only their codes are compared.
private func sameBatch(_ actual: JSON?, _ expected: String) -> Bool {
    func withoutMessages(_ response: JSON) -> JSON {
        guard case .object(var object) = response, let code = response["error"]?["code"] else { return response }
        object["error"] = ["code": code]
        return .object(object)
    }
    guard let actual = actual?.arrayValue?.map(withoutMessages), let expected = parse(expected).arrayValue?.map(withoutMessages) else { return false }
    return actual.count == expected.count && expected.allSatisfy(actual.contains) && actual.allSatisfy(expected.contains)
}

@Suite struct JSONRPCSpecificationExamples {
    let server = ExampleServer()

    @Test func callWithPositionalParameters() {
        #expect(server.exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#) == parse(#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#))
        #expect(server.exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#) == parse(#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#))
    }

    @Test func callWithNamedParameters() {
        #expect(server.exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#) == parse(#"{"jsonrpc": "2.0", "result": 19, "id": 3}"#))
        #expect(server.exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#) == parse(#"{"jsonrpc": "2.0", "result": 19, "id": 4}"#))
    }

    @Test func notificationsGetNoResponse() {
        server.expectSilence(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#)
        server.expectSilence(#"{"jsonrpc": "2.0", "method": "foobar"}"#)
        #expect(server.notifications.withValue { $0 } == ["update", "foobar"])
    }

    @Test func callOfANonExistentMethod() {
        let response = server.exchange(#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#)
        #expect(response?["id"] == "1")
        #expect(response?["error"]?["code"] == -32601)
    }

    @Test func callWithInvalidJSON() {
        let response = server.exchange(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        #expect(response?["id"] == .null)
        #expect(response?["error"]?["code"] == -32700)
    }

    @Test func callWithAnInvalidRequestObject() {
        let response = server.exchange(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)
        #expect(response?["id"] == .null)
        #expect(response?["error"]?["code"] == -32600)
    }

    @Test func batchWithInvalidJSON() {
        let response = server.exchange(#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#)
        #expect(response?["error"]?["code"] == -32700)
        #expect(response?["id"] == .null)
    }

    @Test func emptyArray() {
        let response = server.exchange("[]")
        #expect(response?.objectValue != nil, "one error object, not an array")
        #expect(response?["error"]?["code"] == -32600)
        #expect(response?["id"] == .null)
    }

    @Test func invalidBatchButNotEmpty() {
        let response = server.exchange("[1]")
        #expect(response?.arrayValue?.count == 1)
        #expect(response?.arrayValue?.first?["error"]?["code"] == -32600)
        #expect(response?.arrayValue?.first?["id"] == .null)
    }

    @Test func invalidBatch() {
        let response = server.exchange("[1,2,3]")
        #expect(response?.arrayValue?.count == 3)
        #expect(response?.arrayValue?.allSatisfy { $0["error"]?["code"] == -32600 && $0["id"] == .null } == true)
    }

    @Test func mixedBatch() {
        let response = server.exchange("""
            [
                {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
                {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
                {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
                {"foo": "boo"},
                {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
                {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
            ]
            """)
        let expected = """
            [
                {"jsonrpc": "2.0", "result": 7, "id": "1"},
                {"jsonrpc": "2.0", "result": 19, "id": "2"},
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
                {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
                {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
            ]
            """
        #expect(sameBatch(response, expected), "got \(response?.jsonText ?? "nothing")")
    }

    @Test func batchOfNotificationsOnlyWritesNothing() {
        server.expectSilence("""
            [
                {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
                {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
            ]
            """)
    }
}

@Suite struct JSONRPCLetterOfTheLaw {
    let server = ExampleServer()

    @Test func idsKeepTheirTypeAndExactDigits() {
        #expect(server.exchange(#"{"jsonrpc":"2.0","id":"1","method":"get_data"}"#)?["id"] == .string("1"))
        let big = server.exchange(#"{"jsonrpc":"2.0","id":9007199254740993,"method":"get_data"}"#)
        #expect(big?["id"] == .int(9_007_199_254_740_993))
        #expect(big?.jsonText.contains("9007199254740993") == true)
    }

    @Test func aNullIdIsAnsweredWithANullId() {
        let response = server.exchange(#"{"jsonrpc":"2.0","id":null,"method":"get_data"}"#)
        #expect(response?["id"] == .null)
        #expect(response?["result"] == ["hello", 5])
    }

    @Test(arguments: [
        ("1", JSON.null), ("null", .null), (#""x""#, .null), (#"{"method":1}"#, .null),
        (#"{"id":1,"method":"get_data"}"#, .int(1)),
        (#"{"jsonrpc":"1.0","id":2,"method":"get_data"}"#, .int(2)),
        (#"{"jsonrpc":2.0,"id":3,"method":"get_data"}"#, .int(3)),
        (#"{"jsonrpc":"2.0","id":true,"method":"get_data"}"#, .null),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"get_data"}"#, .null),
        (#"{"jsonrpc":"2.0","id":[1],"method":"get_data"}"#, .null),
        (#"{"jsonrpc":"2.0","id":4,"method":"get_data","params":7}"#, .int(4)),
        (#"{"jsonrpc":"2.0","id":"s","method":"get_data","params":"x"}"#, .string("s")),
    ])
    func invalidRequestsAreAnsweredWithInvalidRequestEchoingAReadableId(text: String, id: JSON) {
        let response = server.exchange(text)
        #expect(response?["error"]?["code"] == -32600, "\(text)")
        #expect(response?["id"] == id, "\(text)")
    }

    @Test func cancelRequestAnswersAPendingRequestWithRequestCancelled() {
        server.client.sendBody(Array(#"{"jsonrpc":"2.0","id":77,"method":"hold"}"#.utf8))
        server.client.sendBody(Array(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":77}}"#.utf8))
        let response = server.client.nextMessage()
        #expect(response?["id"] == 77)
        #expect(response?["error"]?["code"] == -32800)
        // The handler's late answer is dropped: exactly one response per request.
        server.held.withValue { $0.first?.succeed("late") }
        server.expectSilence(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}"#)
    }

    /// Answers are matched to requests by id, so a second request under the id of one still
    /// waiting is refused (it could be told from the first by neither its answer nor a cancel);
    /// once the first is answered, its id is free again.
    @Test func aSecondRequestUnderTheIdOfOneStillWaitingIsRefused() {
        server.client.sendBody(Array(#"{"jsonrpc":"2.0","id":9,"method":"hold"}"#.utf8))
        let refused = server.exchange(#"{"jsonrpc":"2.0","id":9,"method":"get_data"}"#)
        #expect(refused?["id"] == 9)
        #expect(refused?["error"]?["code"] == -32600, "\(String(describing: refused))")
        #expect(server.held.withValue { $0.count } == 1, "the second request never reached the handler")
        // The cancellation reaches the first request, the one still waiting.
        let cancelled = server.exchange(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}}"#)
        #expect(cancelled?["id"] == 9)
        #expect(cancelled?["error"]?["code"] == -32800)
        #expect(server.exchange(#"{"jsonrpc":"2.0","id":9,"method":"get_data"}"#)?["result"] == ["hello", 5])
    }

    @Test func responsesToPipelinedRequestsMayArriveInAnyOrderButAllArrive() {
        server.client.sendBody(Array(#"{"jsonrpc":"2.0","id":"slow","method":"hold"}"#.utf8))
        for id in 1...50 { server.client.sendBody(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"get_data"}"#.utf8)) }
        for id in 1...50 { #expect(server.client.response(to: .int(Int64(id))) != nil) }
        server.held.withValue { $0.first?.succeed("done") }
        #expect(server.client.response(to: "slow")?["result"] == "done")
    }

    @Test func requestsToThePeerGetTheirResponses() {
        let result = Locked<Result<JSON, ResponseError>?>(nil)
        server.connection.send(request: "client/ask", params: ["q": 1]) { answer in result.withValue { $0 = answer } }
        let request = server.client.nextMessage()
        #expect(request?["method"] == "client/ask")
        guard let id = request?["id"] else { return }
        server.client.send(["jsonrpc": "2.0", "id": id, "result": "answer"])
        server.expectSilence(#"{"jsonrpc":"2.0","method":"noop"}"#)
        #expect(result.withValue { $0 } == .success("answer"))
    }
}
