import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// An importer's named filters through zenity and kdialog (stand-in scripts on PATH that log
/// their arguments and answer a file): each filter is offered, the one selected first; neither
/// tool says which one the person had selected, so the pick may match any of them and the
/// first it matches is reported; choices, which neither tool shows, keep their values.
@Suite struct NamedFiltersDesktopTests {
    let scratch = ScratchDirectory("wharf-named-filters-desktop")

    init() {
        scratch.writeStandInDialogTools(answer: "answer")
        scratch.write("notes.md", "# notes\n")
        scratch.write("photo.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    var arguments: [String] { (scratch.text("arguments") ?? "").split(separator: "\n").map(String.init) }

    /// Presents an importer with filters Text (*.txt), Markdown (*.md) and a choice, through
    /// `tool` answering `answer`: the dialog's ending.
    func pick(_ answer: String, with tool: String) throws -> JSON? {
        scratch.write("answer", scratch.path(answer).description + "\n")
        let client = try WireClient.spawn(["--presenter", tool, "--state-dir", ":memory:"], environment: [
            "PATH": scratch.path("bin").description + ":/usr/bin:/bin", "DISPLAY": ":99"])
        client.initialize(["clientInfo": ["name": "named-filters"]])
        let id = try #require(client.call("presentImporter", ["allowedContentTypes": ["public.data"], "options": [
            "defaultDirectory": .string(scratch.path.description),
            "filters": [["name": "Text", "predicate": ["nameMatches": "*.txt"]],
                        ["name": "Markdown", "predicate": ["nameMatches": "*.md"]]],
            "choices": [["id": "readonly", "label": "Read only", "initial": "true"]],
        ]])?["dialogId"]?.stringValue)
        return client.waitFor(timeout: 20) {
            ($0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled") && $0["params"]?["dialogId"] == .string(id)
        }
    }

    @Test func zenityOffersEachFilterAndThePickReportsTheOneItMatches() throws {
        let ending = try #require(try pick("notes.md", with: "zenity"))
        #expect(ending["params"]?["urls"] == [.string(scratch.url("notes.md"))], "\(ending)")
        #expect(ending["params"]?["filter"] == 1, "\(ending)")
        #expect(ending["params"]?["choices"] == ["readonly": "true"], "\(ending)")
        let filters = arguments.filter { $0.hasPrefix("--file-filter=") }
        // Shown case-folded, as zenity's filters always are; the engine still judges the pick.
        #expect(filters == ["--file-filter=Text | *.[tT][xX][tT]", "--file-filter=Markdown | *.[mM][dD]"], "\(arguments)")
    }

    @Test func aPickMatchingNoFilterIsRefusedAndTheDialogComesBack() throws {
        // The stand-in answers the same file every time: refused until the presenter gives up.
        let ending = try #require(try pick("photo.png", with: "zenity"))
        #expect(ending["method"] == "dialog/completed", "\(ending)")
        #expect(ending["params"]?["error"]?["message"]?.stringValue?.contains("it matches none of the dialog's filters") == true, "\(ending)")
        #expect(arguments.contains { $0.hasPrefix("--title=") && $0.contains("matches none of the dialog's filters") }, "\(arguments)")
    }

    @Test func kdialogsPickIsJudgedByTheFiltersToo() throws {
        let ending = try #require(try pick("notes.md", with: "kdialog"))
        #expect(ending["params"]?["filter"] == 1, "\(ending)")
    }
}
