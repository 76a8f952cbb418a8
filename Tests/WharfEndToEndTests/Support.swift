import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// A spawned `wharf` whose dialogs are answered by `steps` (the script presenter).
func scripted(_ steps: JSON, in scratch: ScratchDirectory, arguments: [String] = []) throws -> WireClient {
    scratch.write("script.json", steps.jsonText)
    let client = try WireClient.spawn(["--presenter", "script:" + scratch.file("script.json")] + arguments)
    client.initialize()
    return client
}

/// A spawned `wharf` whose client draws dialogs itself (`presentsDialogs`).
func frontend(_ arguments: [String] = [], name: String = "frontend-tests") throws -> WireClient {
    let client = try WireClient.spawn(arguments)
    client.initialize(["clientInfo": ["name": .string(name)], "capabilities": ["presentsDialogs": true]])
    return client
}

extension WireClient {
    /// Presents and returns the dialog id (nil, with the error recorded by the caller, if refused).
    func present(_ params: JSON, method: String = "presentImporter") -> String? {
        call(method, params)?["dialogId"]?.stringValue
    }

    /// The messages about one dialog, in arrival order (notifications naming it).
    func events(of dialog: String) -> [JSON] {
        messages.filter { $0["params"]?["dialogId"] == .string(dialog) && $0["id"] == nil }
    }

    /// Proves everything the server had to say so far has arrived: a ping's answer comes after it.
    func settle() { _ = call("ping", [:]) }
}

/// The method names of a dialog's notifications, in order.
func methods(_ events: [JSON]) -> [String] { events.compactMap { $0["method"]?.stringValue } }

/// Paths as the protocol and the command line carry them: text (these tests' names are UTF-8,
/// so the text is the bytes; the byte-exact cases use URLs).
extension ScratchDirectory {
    var directory: String { path.description }
}
