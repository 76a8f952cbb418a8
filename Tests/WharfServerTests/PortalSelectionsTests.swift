import Testing
import WharfContentTypes
import WharfDBus
import WharfJSON
import WharfProtocol
@testable import WharfServer

/// What the portal backend makes of a call's filters and choices, and how the person's
/// selections come back from a terminal window's dialog (its answer file).
@Suite struct PortalSelectionsTests {
    func choice(_ id: String, options: [(String, String)], initial: String) throws -> PortalChoice {
        let value = BusValue.structure([
            .string(id), .string(id.uppercased()),
            .array(element: "(ss)", options.map { .structure([.string($0.0), .string($0.1)]) }), .string(initial),
        ])
        return try PortalChoice(value, option: "choices[0]")
    }

    @Test func aChoicesInitialValueIsOneItCanTake() throws {
        let list = try choice("encoding", options: [("utf8", "UTF-8"), ("latin1", "Latin-1")], initial: "")
        #expect(list.dialogChoice == DialogChoiceParams(id: "encoding", label: "ENCODING",
                                                        options: [.init(id: "utf8", label: "UTF-8"), .init(id: "latin1", label: "Latin-1")],
                                                        initial: "utf8"))
        #expect(try choice("encoding", options: [("utf8", "UTF-8"), ("latin1", "Latin-1")], initial: "latin1").answer == "latin1")
        #expect(try choice("box", options: [], initial: "true").answer == "true")
        #expect(try choice("box", options: [], initial: "yes").answer == "false")
        #expect(try choice("box", options: [], initial: "").dialogChoice.options.isEmpty)
    }

    @Test func aFilterIsOnePredicateOfItsGlobsAndTypes() {
        let filter = PortalFilter(name: "Mixed", patterns: [.glob("*.txt"), .mimeType("image/*")])
        let rule = PortalFilterRule(filter, types: ContentTypeScope(registry: .system))
        #expect(rule.predicate == .any([.nameMatches("*.txt"), .conformsTo("public.image")]))
        let images = PortalFilterRule(PortalFilter(name: "Images", patterns: [.mimeType("image/*")]), types: ContentTypeScope(registry: .system))
        #expect(images.predicate == .any([.conformsTo("public.image")]))
        #expect(images.allowedContentTypes == ["public.image"])
    }

    @Test func aTerminalWindowsAnswerCarriesTheFilterAndChoices() throws {
        let outcome = PortalOutcome.chosen(["file:///home/me/a.txt"], filter: 1, choices: ["encoding": "latin1", "readonly": "true"])
        let read = PortalOutcome(json: try JSON.parse(outcome.json.serialized()))
        #expect(read == outcome)
        #expect(PortalOutcome(json: ["outcome": "chosen", "uris": ["file:///a"]]) == .chosen(["file:///a"]))
    }
}
