import Glibc
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// A daemon whose own presenter answers every dialog from `steps` (each client plays its own
/// copy), for tests that need dialogs answered without a presenter connection.
func scriptedDaemon(_ steps: JSON = [], arguments: [String] = []) throws -> DaemonProcess {
    let scratch = ScratchDirectory("wharf-daemon")
    scratch.write("script.json", steps.jsonText)
    return try DaemonProcess(["--presenter", "script:" + scratch.path("script.json").description] + arguments, scratch: scratch)
}

/// A daemon with no presenter of its own (kdialog, without a display): only a presenter
/// connection shows its clients' dialogs.
func bareDaemon(arguments: [String] = []) throws -> DaemonProcess {
    try DaemonProcess(["--presenter", "kdialog"] + arguments, removing: ["DISPLAY", "WAYLAND_DISPLAY"])
}

/// A presenter connection answering `presenter/show` on a thread of its own with `answer`
/// (given the notification's params, it sends the request it wants), until `stop()`.
final class PresenterLoop: Sendable {
    let client: WireClient
    private let running = Locked(true)
    private let ended = WaitableValue(false)
    /// Every `presenter/show` seen, in order.
    let shown = Locked<[JSON]>([])

    init(_ client: WireClient, answer: @escaping @Sendable (WireClient, JSON) -> Void) {
        self.client = client
        startThread { [self] in
            while running.withValue({ $0 }) {
                guard let show = client.notification("presenter/show", timeout: 0.2) else { continue }
                let params = show["params"] ?? .null
                shown.withValue { $0.append(params) }
                answer(client, params)
            }
            ended.change { $0 = true }
        }
    }

    func stop() {
        running.withValue { $0 = false }
        _ = ended.wait { $0 ? true : nil }
    }
}

extension WireClient {
    /// Presents an importer and returns its id (nil when refused). The wait is a guard against
    /// hanging, generous because the sanitizers' builds run these tests too.
    func presentImporter(_ types: [String] = ["public.plain-text"], timeout: Double = 60) -> String? {
        call("presentImporter", ["allowedContentTypes": .array(types.map(JSON.string))], timeout: timeout)?["dialogId"]?.stringValue
    }

    /// The error code of a response, if it is an error.
    func errorCode(_ method: String, _ params: JSON) -> Int64? {
        request(method, params)?["error"]?["code"]?.intValue
    }
}

/// This test process's app, as the daemon names it.
var ownApp: String {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), 4095) }
    var text = "exe:"
    for byte in buffer[..<max(count, 0)] {
        if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "#") {
            text.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            text += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }
    return text
}


