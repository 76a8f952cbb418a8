import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Cancelling a mover while its files are being moved, over the real binary.
@Suite struct MoverCancelOverTheWire {
    let scratch = ScratchDirectory()

    func endings(_ client: WireClient, _ id: String) -> Int {
        client.events(of: id).filter { $0["method"] == "dialog/completed" || $0["method"] == "dialog/cancelled" }.count
    }

    /// A move across file systems (tmpfs to disk) long enough to be cancelled: progress comes,
    /// `cancel` stops it, and everything is where it was.
    @Test func cancellingDuringALongMoveRollsItBack() throws {
        let memory = ScratchDirectory("wharf-mover", in: "/dev/shm")
        let big = memory.path("big.bin")
        let file = try FileDescriptor.open(big, O_WRONLY | O_CREAT, mode: 0o644)
        try file.write(all: [UInt8](repeating: 7, count: 1 << 20))
        try file.truncate(to: 2 << 30)
        scratch.makeDirectory("dst")
        let client = try frontend()
        let id0 = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        _ = client.notification("presenter/show")
        #expect(client.call("dialog/choose", ["dialogId": .string(id0), "urls": [.string(big.url)]]) == [:])
        _ = client.ending(of: id0)
        let id = try #require(client.present(["urls": [.string(big.url)]], method: "presentMover"))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "url": .string(scratch.url("dst"))]) == [:])
        let progress = client.notification("dialog/progress", timeout: 30) { $0["params"]?["dialogId"] == .string(id) }
        #expect(progress?["params"]?["totalBytes"] == .int(2 << 30))
        #expect(client.call("cancel", ["dialogId": .string(id)]) == ["cancelled": true])
        let ending = try #require(client.ending(of: id, timeout: 60)?["params"])
        #expect(ending["reason"] == "client", "cancelled, not completed: \(ending)")
        #expect((try? FileStatus.ofLink(big))?.size == 2 << 30, "the file is where it was, whole")
        client.settle()
        #expect(scratch.contents("dst") == [], "nothing is left in the folder")
        #expect(endings(client, id) == 1)
        #expect(client.call("resolveAccess", ["url": .string(big.url)])?["readOnly"] == true, "the client keeps its grant")
    }
}
