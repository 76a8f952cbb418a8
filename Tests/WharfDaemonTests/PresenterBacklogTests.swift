import Glibc
import Testing
import WharfJSON
import WharfServerTestSupport
import WharfSystem
import WharfTestSupport

/// What one app's dialogs have waiting for the presenter connection is bounded
/// (`--max-presenter-bytes-per-app`): an app presenting dialog after dialog of large filters to
/// a presenter that does not read is refused (`presenterBacklog`), nothing shown, while other
/// apps are served; its budget comes back as the presenter reads.
@Suite struct PresenterBacklog {
    @Test func anAppPastItsBudgetIsRefusedOthersAreServedAndTheBudgetComesBackAsThePresenterReads() throws {
        let daemon = try bareDaemon(arguments: ["--max-presenter-bytes-per-app=1048576"])
        let presenter = try SilentPresenter(daemon)
        let flooder = try daemon.client("flooder")
        // 64 types under one parent, 64 extensions of 60 bytes each: some 280 KB of globs in every
        // dialog of the parent. (The daemon allows 16 times as many types.)
        let children: [JSON] = (0..<64).map { type in
            let extensions = (0..<64).map { JSON.string(String(repeating: "x", count: 54) + "\(type)e\($0)") }
            return ["identifier": .string("com.example.flood.t\(type)"), "conformsTo": ["com.example.flood"],
                    "filenameExtensions": .array(extensions)]
        }
        let declared = flooder.call("contentTypes/declare", ["types": .array([["identifier": "com.example.flood", "conformsTo": ["public.data"]]] + children)])
        try #require(declared?["declared"]?.arrayValue?.count == 65)
        let flood: JSON = ["allowedContentTypes": ["com.example.flood"]]

        // The socket's buffers take some; beyond them, the budget takes four dialogs at most.
        var accepted: [String] = []
        var refusal: JSON?
        while accepted.count < 40 && refusal == nil {
            let response = try #require(flooder.request("presentImporter", flood, timeout: 60))
            if let id = response["result"]?["dialogId"]?.stringValue { accepted.append(id) } else { refusal = response["error"] }
        }
        let error = try #require(refusal, "\(accepted.count) dialogs of 280 KB were queued for a presenter that reads nothing")
        #expect(error["code"] == -32019)
        #expect(error["message"]?.stringValue?.contains("--max-presenter-bytes-per-app") == true, "\(error)")
        #expect(!accepted.isEmpty)
        #expect(daemon.log().contains("refused a dialog of \(ownApp)"))

        // The refused app is not disconnected, and another app's dialog is still taken.
        #expect(flooder.call("ping", [:]) == [:])
        let other = try daemon.bridge(launcher: ["/usr/bin/timeout", "60"])
        other.initialize(["clientInfo": ["name": "honest"]])
        let honest = try #require(other.presentImporter())

        // The presenter reads: every dialog taken is shown, in order, and the refused one never.
        let shown = try (0...accepted.count).map { _ in try presenter.nextShow()["dialogId"]?.stringValue }
        #expect(shown == accepted + [honest])

        // Written, the bytes are the app's again. (The daemon counts them out just after the
        // presenter has read the last of them: a refusal in between is asked again.)
        let deadline = Deadline(secondsFromNow: 20)
        var again: JSON?
        repeat {
            again = flooder.request("presentImporter", flood, timeout: 60)
            if again?["error"]?["code"] == -32019 { ProcessControl.sleep(milliseconds: 10) } else { break }
        } while !deadline.hasPassed
        let next = try #require(again?["result"]?["dialogId"]?.stringValue, "\(again ?? "no answer")")
        #expect(try presenter.nextShow()["dialogId"]?.stringValue == next)
    }
}

/// A presenter connection that registers, then reads nothing until the test asks for the next
/// `presenter/show`: what the daemon writes to it meanwhile waits in the daemon's queue.
private final class SilentPresenter {
    let socket: FileDescriptor
    private var buffer: [UInt8] = []

    init(_ daemon: DaemonProcess) throws {
        socket = try UnixSocket.connect(to: daemon.socketPath)
        let initialize: JSON = ["jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": ["clientInfo": ["name": "silent"], "role": "presenter"]]
        try socket.write(all: initialize.serialized() + [0x0A])
        let answer = try #require(try nextMessage())
        try #require(answer["result"] != nil, "\(answer)")
    }

    deinit { socket.close() }

    /// The params of the next `presenter/show` (other messages are skipped).
    func nextShow() throws -> JSON {
        while let message = try nextMessage() {
            if message["method"] == "presenter/show" { return message["params"] ?? .null }
        }
        throw Ended()
    }

    /// The next line the daemon wrote, parsed; nil at its end, or after a minute without one (a
    /// guard against a hung daemon, not a time being tested).
    private func nextMessage() throws -> JSON? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try JSON.parse(line)
            }
            var poller = pollfd(fd: socket.raw, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 60_000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    struct Ended: Error {}
}
