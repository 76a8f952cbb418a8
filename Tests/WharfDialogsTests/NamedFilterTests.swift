import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfDialogs

/// Named filters and choices (``DialogOptions/filters``, ``DialogOptions/choices``): the
/// selected filter judges the listing and every pick, and the ending reports the filter in
/// force and each choice's value.
@Suite struct NamedFilterTests {
    let text = DialogFilter(name: "Text", predicate: .nameMatches("*.txt"))
    let markdown = DialogFilter(name: "Markdown", predicate: .nameMatches("*.md"))

    func selections(_ h: Harness, _ id: DialogID) -> DialogSelections?? {
        guard case .completed(_, _, _, _, let selections)? = h.events.events(id).last else {
            Issue.record("dialog \(id) did not complete: \(h.events.events(id))")
            return nil
        }
        return .some(selections)
    }

    func enabled(_ h: Harness, _ id: DialogID) throws -> [String: String?] {
        let page = try h.engine.list(client: h.client, id: id, directory: h.dir.path)
        return Dictionary(uniqueKeysWithValues: page.entries.map { (String(decoding: $0.name, as: UTF8.self), $0.enabled ? nil : $0.disabledReason) })
    }

    @Test func theSelectedFilterJudgesTheListingAndThePick() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let b = h.dir.makeFile("b.md")
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, filters: [text, markdown]))
        let first = try enabled(h, id)
        #expect(first["a.txt"] == .some(nil))
        #expect(first["b.md"] == "it does not match the filter \u{201C}Text\u{201D}")
        guard case .rejectedChoice(_, let reason)? = dialogError({ try h.engine.choose(client: h.client, id: id, urls: [b]) }) else {
            Issue.record("a pick outside the selected filter was taken")
            return
        }
        #expect(reason == "it does not match the filter \u{201C}Text\u{201D}")

        try h.engine.selectFilter(client: h.client, id: id, index: 1)
        let second = try enabled(h, id)
        #expect(second["b.md"] == .some(nil))
        #expect(second["a.txt"] == "it does not match the filter \u{201C}Markdown\u{201D}")
        #expect(dialogError { try h.engine.choose(client: h.client, id: id, urls: [a]) } != nil)
        try h.engine.choose(client: h.client, id: id, urls: [b])
        #expect(selections(h, id) == .some(DialogSelections(filter: 1, choices: [])))
    }

    @Test func currentFilterIsTheOneSelectedAtFirst() throws {
        let h = Harness()
        let b = h.dir.makeFile("b.md")
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, filters: [text, markdown], currentFilter: 1))
        try h.engine.choose(client: h.client, id: id, urls: [b])
        #expect(selections(h, id) == .some(DialogSelections(filter: 1, choices: [])))
    }

    @Test func withAnyFilterInForceTheFirstOneAllPicksMatchIsReported() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let b = h.dir.makeFile("b.md")
        let either = DialogFilter(name: "Either", predicate: .any([.nameMatches("*.txt"), .nameMatches("*.md")]))
        let options = DialogOptions(defaultDirectory: h.dir.path, filters: [text, markdown, either])
        let id = try h.importer(multiple: true, options: options)
        try h.engine.selectFilter(client: h.client, id: id, index: nil)
        guard case .rejectedChoice(_, let reason)? = dialogError({ try h.engine.choose(client: h.client, id: id, urls: [a, h.dir.makeFile("c.text")]) })
        else {
            Issue.record("a pick matching no filter was taken")
            return
        }
        #expect(reason == "it matches none of the dialog's filters")
        try h.engine.choose(client: h.client, id: id, urls: [a, b])
        #expect(selections(h, id) == .some(DialogSelections(filter: 2, choices: [])))

        let only = try h.importer(multiple: true, options: options)
        try h.engine.selectFilter(client: h.client, id: only, index: nil)
        try h.engine.choose(client: h.client, id: only, urls: [b])
        #expect(selections(h, only) == .some(DialogSelections(filter: 1, choices: [])))
    }

    @Test func picksMatchingNoSingleFilterAreRefusedWhenAnyIsInForce() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let b = h.dir.makeFile("b.md")
        let id = try h.importer(multiple: true, options: DialogOptions(defaultDirectory: h.dir.path, filters: [text, markdown]))
        try h.engine.selectFilter(client: h.client, id: id, index: nil)
        guard case .rejectedChoice(_, let reason)? = dialogError({ try h.engine.choose(client: h.client, id: id, urls: [a, b]) }) else {
            Issue.record("picks of two filters were taken")
            return
        }
        #expect(reason == "the files chosen do not all match one of the dialog's filters")
    }

    @Test func choicesStartAtTheirInitialValuesAndComeBackAsSet() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let encoding = DialogChoice(id: "encoding", label: "Encoding",
                                    options: [.init(id: "utf8", label: "UTF-8"), .init(id: "latin1", label: "Latin-1")], initial: "latin1")
        let readOnly = DialogChoice(id: "readonly", label: "Read only")
        let eol = DialogChoice(id: "eol", label: "Line ends", options: [.init(id: "lf", label: "LF"), .init(id: "crlf", label: "CRLF")])
        let id = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, choices: [encoding, readOnly, eol]))
        try h.engine.setChoice(client: h.client, id: id, choiceId: "readonly", value: "true")
        #expect(dialogError { try h.engine.setChoice(client: h.client, id: id, choiceId: "encoding", value: "ebcdic") }
            == .invalidArgument(field: "choices.encoding", reason: "ebcdic is not one of utf8, latin1"))
        #expect(dialogError { try h.engine.setChoice(client: h.client, id: id, choiceId: "colour", value: "red") }
            == .invalidArgument(field: "choices", reason: "this dialog has no choice colour"))
        try h.engine.choose(client: h.client, id: id, urls: [a])
        #expect(selections(h, id) == .some(DialogSelections(filter: nil, choices: [
            .init(id: "encoding", value: "latin1"), .init(id: "readonly", value: "true"), .init(id: "eol", value: "lf"),
        ])))
    }

    @Test func aDialogWithoutFiltersOrChoicesReportsNone() throws {
        let h = Harness()
        let a = h.dir.makeFile("a.txt")
        let id = try h.importer()
        #expect(dialogError { try h.engine.selectFilter(client: h.client, id: id, index: 0) }
            == .invalidArgument(field: "filter", reason: "this dialog has no filters"))
        try h.engine.choose(client: h.client, id: id, urls: [a])
        #expect(selections(h, id) == .some(nil))
    }

    @Test func badFiltersAndChoicesAreRefusedBeforeAnythingIsShown() {
        let h = Harness()
        #expect(dialogError { _ = try h.importer(options: DialogOptions(filters: [text], currentFilter: 1)) }
            == .invalidArgument(field: "options.currentFilter", reason: "1 is not the index of one of the 1 filters"))
        #expect(dialogError { _ = try h.importer(options: DialogOptions(filters: [DialogFilter(name: "", predicate: .nameMatches("*"))])) }
            == .invalidArgument(field: "options.filters[0].name", reason: "must not be empty"))
        let box = DialogChoice(id: "box", label: "Box", initial: "yes")
        #expect(dialogError { _ = try h.importer(options: DialogOptions(choices: [box])) }
            == .invalidArgument(field: "options.choices[0].initial", reason: "yes is not one of false, true"))
        let twice = DialogChoice(id: "box", label: "Box")
        #expect(dialogError { _ = try h.importer(options: DialogOptions(choices: [twice, twice])) }
            == .invalidArgument(field: "options.choices[1].id", reason: "box is given twice"))
        #expect(h.presenter.shown.isEmpty)
    }

    @Test func aChoiceCyclesThroughItsValues() {
        let box = DialogChoice(id: "box", label: "Box")
        #expect(box.isCheckBox && box.initial == "false")
        #expect(box.value(after: "false") == "true" && box.value(after: "true") == "false")
        #expect(box.label(of: "true") == "on")
        let list = DialogChoice(id: "l", label: "L", options: [.init(id: "a", label: "A"), .init(id: "b", label: "B")])
        #expect(list.initial == "a" && list.value(after: "a") == "b" && list.value(after: "b") == "a")
        #expect(list.label(of: "b") == "B")
    }

    @Test func thePresenterIsShownTheFiltersAndChoices() throws {
        let h = Harness()
        let choice = DialogChoice(id: "box", label: "Box")
        _ = try h.importer(options: DialogOptions(defaultDirectory: h.dir.path, filters: [text, markdown], currentFilter: 1, choices: [choice]))
        let shown = try #require(h.presenter.shown.first)
        #expect(shown.namedFilters.map(\.name) == ["Text", "Markdown"])
        #expect(shown.namedFilters[0].shown.globs == ["*.txt"])
        #expect(shown.currentFilter == 1)
        #expect(shown.choices == [choice])
    }
}
