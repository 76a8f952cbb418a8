import Testing
import WharfJSON
import WharfProtocol
import WharfServer
import WharfServerTestSupport

/// WharfProtocol's types and protocol/wharf.schema.json describe one protocol: the same
/// methods in the same directions, and every type's example is valid by the schema and reads
/// back as itself. The server answers exactly the requests a client sends.
@Suite struct ProtocolCatalogAgreesWithTheSchema {
    let schema = ProtocolSchema.wharf
    let validator = SchemaValidator(root: ProtocolSchema.wharf.document)

    @Test func theSameMethodsInTheSameDirections() {
        var requests: [String: String] = [:], notifications: [String: String] = [:]
        for type in ProtocolCatalog.requests { requests[type.method] = type.direction.rawValue }
        for type in ProtocolCatalog.notifications { notifications[type.method] = type.direction.rawValue }
        #expect(requests == schema.requests.mapValues(\.direction.rawValue))
        #expect(notifications == schema.notifications.mapValues(\.direction.rawValue))
    }

    @Test(arguments: ProtocolCatalog.requests.map { $0.method })
    func aRequestsExampleIsValidAndReadsBack(method: String) throws {
        let type = try #require(ProtocolCatalog.requests.first { $0.method == method })
        try checkRequest(type)
    }

    @Test(arguments: ProtocolCatalog.notifications.map { $0.method })
    func aNotificationsExampleIsValidAndReadsBack(method: String) throws {
        let type = try #require(ProtocolCatalog.notifications.first { $0.method == method })
        try checkNotification(type)
    }

    @Test func theServerAnswersEveryRequestAClientSendsAndNoOther() {
        var sent = Set<String>()
        for type in ProtocolCatalog.requests where type.direction == .clientToServer { sent.insert(type.method) }
        #expect(Server.answeredMethods == sent)
    }

    private func checkRequest<R: RequestMessage>(_: R.Type) throws {
        let entry = try #require(schema.requests[R.method])
        try checkParams(R.example, entry)
        let result = R.Result.example
        if let resultSchema = entry.result {
            #expect(validator.problems(result.json, against: resultSchema, at: "\(R.method) result").isEmpty)
        }
        #expect(try R.Result(json: result.json) == result, "\(R.method)'s result does not read back as itself")
    }

    private func checkNotification<N: NotificationMessage>(_: N.Type) throws {
        try checkParams(N.example, try #require(schema.notifications[N.method]))
    }

    /// The example's params are valid, or empty for a method that takes none, and read back.
    private func checkParams<M: ProtocolValue>(_ example: M, _ entry: ProtocolSchema.Method) throws {
        if let params = entry.params {
            let problems = validator.problems(example.json, against: params, at: "\(entry.name) params")
            #expect(problems.isEmpty, "\(problems)")
        } else {
            #expect(example.json == .object(JSONObject()), "\(entry.name) takes no params")
        }
        var reader = try FieldReader(params: example.json)
        #expect(try M(reading: &reader) == example, "\(entry.name)'s params do not read back as themselves")
        #expect(reader.unknownFields.isEmpty, "\(entry.name) writes fields it does not read: \(reader.unknownFields)")
    }
}
