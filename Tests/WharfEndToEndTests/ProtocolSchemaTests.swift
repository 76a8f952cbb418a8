import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfProtocol
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

func readRepositoryFile(_ relative: String) throws -> String {
    let descriptor = open(ProtocolSchema.repositoryRoot + "/" + relative, O_RDONLY)
    guard descriptor >= 0 else { throw SystemError.current("open", path: relative) }
    defer { close(descriptor) }
    return readAll(descriptor)
}

/// The JSON Schema subset the protocol schema is written in.
@Suite struct SchemaValidation {
    let validator = SchemaValidator(root: [
        "$defs": ["Name": ["type": "string", "minLength": 1]],
    ])

    func problems(_ value: JSON, _ schema: JSON) -> [String] { validator.problems(value, against: schema, at: "value") }

    @Test func typesIncludingIntegralDoublesAsIntegers() {
        #expect(problems(1, ["type": "integer"]).isEmpty)
        #expect(problems(2.0, ["type": "integer"]).isEmpty)
        #expect(problems(2.5, ["type": "integer"]) == ["value: expected integer, got 2.5"])
        #expect(problems(.null, ["type": ["string", "null"]]).isEmpty)
        #expect(problems(true, ["type": ["string", "null"]]) == ["value: expected string or null, got true"])
    }

    @Test func objectsNameTheMemberThatIsWrong() {
        let schema: JSON = [
            "type": "object",
            "properties": ["name": ["$ref": "#/$defs/Name"], "size": ["type": "integer", "minimum": 0]],
            "required": ["name"],
            "additionalProperties": false,
        ]
        #expect(problems(["name": "a", "size": 3], schema).isEmpty)
        #expect(problems(["size": -1], schema) == [
            "value.size: expected at least 0, got -1",
            "value: the member \"name\" is missing",
        ])
        #expect(problems(["name": "", "extra": 1], schema) == [
            "value.name: expected at least 1 characters, got 0",
            "value: the member \"extra\" is not in the schema",
        ])
    }

    @Test func lengthsCountCodePoints() {
        let schema: JSON = ["type": "string", "minLength": 2, "maxLength": 3]
        #expect(problems("éé", schema).isEmpty)  // two code points, four bytes
        #expect(problems("e\u{301}e", schema).isEmpty)  // three code points, two characters
        #expect(problems("é", schema) == ["value: expected at least 2 characters, got 1"])
        #expect(problems("éééé", schema) == ["value: expected at most 3 characters, got 4"])
    }

    @Test func arraysEnumsAndConstants() {
        let schema: JSON = ["type": "array", "items": ["enum": ["lsp", "ndjson"]], "minItems": 1]
        #expect(problems(["lsp"], schema).isEmpty)
        #expect(problems([], schema) == ["value: expected at least 1 elements, got 0"])
        #expect(problems(["lsp", "xml"], schema) == ["value[1]: expected one of \"lsp\", \"ndjson\", got \"xml\""])
        #expect(problems("2.0", ["const": "2.0"]).isEmpty)
        #expect(!problems("1.0", ["const": "2.0"]).isEmpty)
    }

    @Test func oneOfNeedsExactlyOneAlternative() {
        let schema: JSON = ["oneOf": [["required": ["urls"]], ["required": ["error"]]]]
        #expect(problems(["urls": []], schema).isEmpty)
        #expect(problems(["urls": [], "error": [:]], schema).first?.contains("exactly one") == true)
        #expect(problems([:], schema).first?.contains("none of the 2 alternatives") == true)
        #expect(problems([:], ["anyOf": [["type": "object"], ["type": "string"]]]).isEmpty)
    }

    @Test func uriFormatNeedsAScheme() {
        #expect(problems("file:///tmp/a", ["format": "uri"]).isEmpty)
        #expect(!problems("/tmp/a", ["format": "uri"]).isEmpty)
    }

    @Test func unsupportedKeywordsAndDanglingReferencesAreProblems() {
        #expect(problems("a", ["pattern": "^a$"]) == ["value: the schema uses \"pattern\", which this validator does not support"])
        #expect(problems("a", ["$ref": "#/$defs/Missing"]).first?.contains("does not exist") == true)
    }
}

/// The protocol schema itself, and its check of what a server sends.
@Suite struct ProtocolSchemaCheck {
    let schema = ProtocolSchema.wharf

    @Test func theSchemaLoadsAndEveryEntrysSchemasAreSupported() {
        #expect(schema.requests["initialize"] != nil)
        #expect(schema.notifications["$/logTrace"]?.direction == .serverToClient)
        // Validating against `true`-like dummy values exercises every keyword in every schema:
        // an unsupported keyword or a dangling $ref is reported whatever the value.
        let validator = SchemaValidator(root: schema.document)
        for method in schema.allMethods {
            for part in [method.params, method.result].compactMap({ $0 }) {
                let unsupported = validator.problems(.null, against: part, at: method.name)
                    .filter { $0.contains("does not support") || $0.contains("does not exist") }
                #expect(unsupported.isEmpty, "\(unsupported)")
            }
        }
    }

    /// Each bound the schema states is the binary's: a value the binary refuses `-32602` the
    /// schema refuses, and one it accepts the schema allows (a client generating types from the
    /// schema sent what the binary then refused: a limit of 2^31, a read of 16 MiB + 1, an empty
    /// glob). Ids are what the binary answers requests under, and `isPresented` is always false.
    @Test func theSchemasBoundsAreTheOnesTheBinaryEnforces() throws {
        let validator = SchemaValidator(root: schema.document)
        let client = try WireClient.spawn()
        client.initialize(["clientInfo": ["name": "schema-bounds"], "capabilities": ["presentsDialogs": true]])
        func importer(_ predicate: JSON) -> JSON { ["allowedContentTypes": ["public.item"], "options": ["urlEnabled": predicate]] }
        let cases: [(String, JSON)] = [
            ("dialog/list", ["dialogId": "dlg-99", "limit": 2147483647]),
            ("dialog/list", ["dialogId": "dlg-99", "limit": 2147483648]),
            ("dialog/list", ["dialogId": "dlg-99", "limit": 0]),
            ("readFile", ["accessId": "acc_none", "length": 16777216]),
            ("readFile", ["accessId": "acc_none", "length": 16777217]),
            ("presentImporter", importer(["nameMatches": "*.txt"])),
            ("presentImporter", importer(["nameMatches": ""])),
            ("presentImporter", importer(["pathMatches": ""])),
            ("presentImporter", importer(["pathMatches": .string(String(repeating: "a", count: 4097))])),
        ]
        for (method, params) in cases {
            let refused = client.request(method, params)?["error"]?["code"] == -32602
            let paramsSchema = try #require(schema.requests[method]?.params)
            let problems = validator.problems(params, against: paramsSchema, at: method)
            #expect(problems.isEmpty == !refused,
                    "\(method) \(params.jsonText.prefix(120)): the binary \(refused ? "refuses" : "accepts") it; the schema says \(problems)")
        }
        let cancelSchema = try #require(schema.notifications["$/cancelRequest"]?.params)
        for id: JSON in ["7", 7, 1.5, .int(Int64.min), .int(Int64.max), .null] {
            #expect(validator.problems(["id": id], against: cancelSchema, at: "$/cancelRequest").isEmpty, "\(id.jsonText)")
        }
        #expect(!schema.problems(inServerMessage: [
            "jsonrpc": "2.0", "method": "dialog/presentationChanged", "params": ["dialogId": "dlg-1", "isPresented": true],
        ]) { _ in nil }.isEmpty)
    }

    /// Every `data` an error carries is described in the error table: -32602's `limit` (too
    /// many leases) and -32603's `store` (the state store failing) were sent, documented in
    /// protocol/README, and absent from the schema, which checked data only where it described
    /// some, so a client generating types from it never learnt of them.
    @Test func everyErrorsDataIsDescribed() {
        let schema = ProtocolSchema.wharf
        let answer: (Int64, JSON) -> [String] = { code, data in
            schema.problems(inServerMessage: ["jsonrpc": "2.0", "id": 1, "error": ["code": .int(code), "message": "m", "data": data]]) { _ in "resolveAccess" }
        }
        #expect(answer(-32602, ["limit": 4096]).isEmpty, "\(answer(-32602, ["limit": 4096]))")
        #expect(answer(-32603, ["store": "diskFull"]).isEmpty, "\(answer(-32603, ["store": "diskFull"]))")
        #expect(!answer(-32603, ["store": "full"]).isEmpty)
        #expect(!answer(-32013, ["dialogId": "dlg-1"]).isEmpty, "data the table does not describe is a problem")
    }

    @Test func theErrorTableAndTheProtocolsCodesAgree() {
        // Every code WharfProtocol defines is tabled under its name, and every tabled code is
        // defined: a code added on either side is caught.
        for code in WharfErrorCode.allCases {
            #expect(schema.errorCodes[code.rawValue]?.name == "\(code)", "\(code) (\(code.rawValue)) is not tabled under its name")
        }
        let defined = Set(WharfErrorCode.allCases.map(\.rawValue))
        let tabled = Set(schema.errorCodes.keys)
        #expect(tabled.subtracting(defined).isEmpty, "tabled but not defined in WharfProtocol: \(tabled.subtracting(defined).sorted())")
    }

    @Test func aResultIsCheckedAgainstTheMethodItAnswers() {
        let methods: [JSON: String] = [1: "ping", 2: "initialize"]
        func check(_ message: JSON) -> [String] { schema.problems(inServerMessage: message) { methods[$0] } }
        #expect(check(["jsonrpc": "2.0", "id": 1, "result": [:]]).isEmpty)
        #expect(check(["jsonrpc": "2.0", "id": 1, "result": ["pong": true]]).count == 1)
        #expect(!check(["jsonrpc": "2.0", "id": 2, "result": ["serverInfo": ["name": "wharf"]]]).isEmpty)
        #expect(!check(["jsonrpc": "2.0", "id": 1]).isEmpty, "a response needs a result or an error")
        #expect(!check(["jsonrpc": "2.0", "id": 1, "result": [:], "error": ["code": -32600, "message": "x"]]).isEmpty)
    }

    @Test func errorsMustUseATabledCode() {
        #expect(schema.problems(inServerMessage: ["jsonrpc": "2.0", "id": 1, "error": ["code": -32601, "message": "no"]]) { _ in nil }.isEmpty)
        let untabled = schema.problems(inServerMessage: ["jsonrpc": "2.0", "id": 1, "error": ["code": -1, "message": "no"]]) { _ in nil }
        #expect(untabled.first?.contains("does not list") == true)
    }

    @Test func theServerMayOnlySendServerToClientMethods() {
        #expect(schema.problems(inServerMessage: ["jsonrpc": "2.0", "method": "$/logTrace", "params": ["message": "m"]]) { _ in nil }.isEmpty)
        #expect(!schema.problems(inServerMessage: ["jsonrpc": "2.0", "method": "$/setTrace", "params": ["value": "off"]]) { _ in nil }.isEmpty)
        #expect(!schema.problems(inServerMessage: ["jsonrpc": "2.0", "method": "made/up"]) { _ in nil }.isEmpty)
        #expect(!schema.problems(inServerMessage: ["jsonrpc": "2.0", "method": "$/logTrace", "params": ["message": 1]]) { _ in nil }.isEmpty)
    }

    /// The test client writes nothing once it has closed the server's input: the descriptor's
    /// number is free then, and the next file opened anywhere in the test process (tests run in
    /// parallel) takes it. A send after the close went into that file: into another test's
    /// server, which answered a request it never made (a `ping` before its `initialize`, -32002,
    /// failed another test on CI).
    @Test func theTestClientWritesNothingOnceItClosedTheServersInput() throws {
        let toServer = try makePipe(), fromServer = try makePipe(), other = try makePipe()
        let client = WireClient(writingTo: toServer.write, readingFrom: fromServer.read)
        defer {
            // The client's reader reads `fromServer.read` until it sees the end: only then may
            // that number be closed. Closed first, it was free for the next file opened in the
            // process while the reader might still call `read` on it, and the reader took that
            // file's bytes (another test's server's answer: its client never got it).
            close(fromServer.write)
            #expect(client.waitForEndOfOutput())
            for fd in [toServer.read, fromServer.read, other.read, other.write] { close(fd) }
        }
        client.closeInput()
        // The closed number is the lowest free one: duplicates of another pipe's write end soon
        // take it, as any file opened elsewhere in the process could.
        var duplicates: [Int32] = []
        defer { for fd in duplicates { close(fd) } }
        while duplicates.count < 256, duplicates.last != toServer.write { duplicates.append(dup(other.write)) }
        try #require(duplicates.last == toServer.write, "nothing took the closed descriptor's number")
        client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
        _ = fcntl(other.read, F_SETFL, O_NONBLOCK)
        var byte: UInt8 = 0
        #expect(read(other.read, &byte, 1) < 0 && errno == EAGAIN, "the client wrote into a pipe it does not own")
    }

    @Test func aServerMessageThatBreaksTheSchemaFailsTheTestWithoutBeingAskedTo() throws {
        // A fake server on a pipe answers a ping with a made-up member: the WireClient must
        // record an issue by itself the moment the test looks at the answer.
        let toServer = try makePipe(), fromServer = try makePipe()
        defer { close(toServer.read); close(fromServer.write) }
        let client = WireClient(writingTo: toServer.write, readingFrom: fromServer.read, schema: .wharf)
        let id = client.sendRequest("ping", [:])
        let body = Array(#"{"jsonrpc":"2.0","id":\#(id.jsonText),"result":{"pong":true}}"#.utf8)
        let frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        _ = frame.withUnsafeBytes { write(fromServer.write, $0.baseAddress!, $0.count) }
        withKnownIssue {
            _ = client.response(to: id)
        } matching: { issue in
            issue.description.contains("pong")
        }
        #expect(client.protocolProblems.count == 1)
    }
}
