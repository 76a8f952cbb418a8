import Testing
import WharfJSON
import WharfServerTestSupport
import WharfTestSupport

/// Every transcript in `protocol/conformance/`, replayed against the built binary (the Python
/// and Node clients replay the same files), and the check that together they exercise the
/// whole protocol schema.
@Suite struct Conformance {
    @Test(arguments: ConformanceTranscript.names())
    func transcriptReplaysAgainstTheBinary(name: String) throws {
        let transcript = try ConformanceTranscript.load(name)
        let failures = ConformanceRunner(transcript).run()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func thereAreTranscriptsToReplay() {
        #expect(ConformanceTranscript.names().count >= 10)
    }

    @Test func everySchemaMethodIsExercisedByATranscript() throws {
        let transcripts = try ConformanceTranscript.names().map(ConformanceTranscript.load)
        let sent = transcripts.reduce(into: Set<String>()) { $0.formUnion($1.methodsSent) }
        let expected = transcripts.reduce(into: Set<String>()) { $0.formUnion($1.methodsExpected) }
        let schema = ProtocolSchema.wharf
        var uncovered: [String] = []
        for method in schema.allMethods {
            let fromClient = method.direction != .serverToClient
            let fromServer = method.direction != .clientToServer
            if fromClient && !sent.contains(method.name) { uncovered.append("\(method.name) (no transcript sends it)") }
            if fromServer && !expected.contains(method.name) { uncovered.append("\(method.name) (no transcript expects it)") }
        }
        #expect(uncovered.isEmpty, "schema entries no transcript exercises:\n\(uncovered.joined(separator: "\n"))")
    }

    @Test func everyTabledErrorCodeIsExpectedByATranscript() throws {
        let transcripts = try ConformanceTranscript.names().map(ConformanceTranscript.load)
        let expected = transcripts.reduce(into: Set<Int64>()) { $0.formUnion($1.errorCodesExpected) }
        let exempt = ProtocolSchema.wharf.codesExemptFromConformance
        let uncovered = ProtocolSchema.wharf.errorCodes.values
            .filter { !expected.contains($0.code) && exempt[$0.code] == nil }
            .map { "\($0.code) \($0.name)" }
            .sorted()
        #expect(uncovered.isEmpty, "error codes no transcript expects:\n\(uncovered.joined(separator: "\n"))")
    }

    @Test func everyTranscriptMethodIsInTheSchema() throws {
        // A transcript that sends a method on purpose unknown must say so by its name.
        let schema = ProtocolSchema.wharf
        for transcript in try ConformanceTranscript.names().map(ConformanceTranscript.load) {
            for method in transcript.methodsSent.union(transcript.methodsExpected) {
                let known = schema.requests[method] != nil || schema.notifications[method] != nil
                let deliberatelyUnknown = method.hasPrefix("no/such/") || method.hasPrefix("rpc.") || method.hasPrefix("$/unknown")
                #expect(known || deliberatelyUnknown, "\(transcript.name) uses \(method), which the schema does not describe")
            }
        }
    }
}
