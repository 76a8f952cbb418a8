import Testing
import WharfJSON
import WharfServerTestSupport
import WharfTestSupport

/// Which presenter a client gets at `initialize` (protocol/README.md, "Presenters"): its own
/// when it draws its dialogs, unless it prefers the desktop's and one is usable; otherwise the
/// script, when `wharf` runs with one. `capabilities.presenter` names the choice.
@Suite("PresenterChoice", .serialized)
struct PresenterChoiceTests {
    let scratch = ScratchDirectory()

    private func presenter(_ capabilities: JSON) throws -> JSON? {
        scratch.write("script.json", "[]")
        let client = try WireClient.spawn(["--presenter", "script:" + scratch.file("script.json"), "--state-dir", ":memory:"])
        let result = client.initialize(["clientInfo": ["name": "presenter-choice"], "capabilities": capabilities])
        #expect(client.shutdownAndExit() == 0)
        return result?["capabilities"]?["presenter"]
    }

    @Test func aClientThatDoesNotDrawItsDialogsGetsTheScript() throws {
        #expect(try presenter([:]) == "script")
    }

    @Test func aClientThatDrawsItsDialogsGetsThemRatherThanTheScript() throws {
        #expect(try presenter(["presentsDialogs": true]) == "frontend")
    }

    @Test func aClientThatPrefersTheDesktopsDialogsWhenNoneIsUsableDrawsItsOwn() throws {
        #expect(try presenter(["presentsDialogs": true, "prefersDesktopDialogs": true]) == "frontend")
    }
}
