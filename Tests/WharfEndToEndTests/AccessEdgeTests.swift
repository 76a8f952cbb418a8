import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Grants at their edges (issue 12, class 2), over the binary: a link granted as a link, a file
/// replaced after it was picked, and files that are never documents.
@Suite struct AccessEdgesOverTheWire {
    let scratch = ScratchDirectory()

    init() {
        scratch.write("target.txt", "the link's target")
        scratch.write("other.txt", "another file")
        scratch.symlink("link.txt", to: "target.txt")
    }

    /// Chooses `url` in a fresh frontend importer with `options`; the `dialog/choose` response.
    func choose(_ client: WireClient, _ url: String, options: JSON = [:], types: JSON = ["public.item"]) throws -> (String, JSON?) {
        let id = try #require(client.present(["allowedContentTypes": types, "options": options]))
        return (id, client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(url)]]))
    }

    @Test func aLinkGrantedAsALinkResolvesAsTheLink() throws {
        let client = try frontend()
        let (id, answer) = try choose(client, scratch.url("link.txt"), options: ["importsUnresolvedAliases": true])
        #expect(answer?["result"] == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(scratch.url("link.txt"))])
        let lease = try #require(client.call("resolveAccess", ["url": .string(scratch.url("link.txt"))]))
        #expect(lease["url"] == .string(scratch.url("link.txt")))
        #expect(lease["path"].flatMap { $0.stringValue.map { Array($0.utf8) } } == scratch.path("link.txt").bytes)
        #expect(lease["isDirectory"] == false)
        // The grant is for the link, not what it points to: the target was never picked.
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("target.txt"))])?["error"]?["code"] == -32020)
        // Nothing is read through a link.
        #expect(client.request("readFile", ["accessId": lease["accessId"] ?? .null])?["error"]?["code"] == -32020)
    }

    @Test func aLinkGrantedAsALinkIsDeniedOnceAnotherLinkStandsThere() throws {
        let client = try frontend()
        let (id, answer) = try choose(client, scratch.url("link.txt"), options: ["importsUnresolvedAliases": true])
        #expect(answer?["result"] == [:])
        _ = client.ending(of: id)
        removeFile(scratch.path("link.txt"))
        scratch.symlink("link.txt", to: "other.txt")
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("link.txt"))])?["error"]?["code"] == -32020)
    }

    @Test func aFileRenamedOverAfterTheGrantIsDenied() throws {
        scratch.write("picked.txt", "what the human picked")
        let client = try frontend()
        let (id, answer) = try choose(client, scratch.url("picked.txt"))
        #expect(answer?["result"] == [:])
        _ = client.ending(of: id)
        #expect(client.call("resolveAccess", ["url": .string(scratch.url("picked.txt"))])?["accessId"] != nil)

        // Another file renamed over the picked one: the path is the same, the file is not.
        atomicSave(scratch.path("picked.txt"), "something else entirely")
        let denied = client.request("resolveAccess", ["url": .string(scratch.url("picked.txt"))])
        #expect(denied?["error"]?["code"] == -32020)
        #expect(denied?["error"]?["message"]?.stringValue?.contains(scratch.directory) == false, "a denial names no path")
    }

    @Test func aLeaseStartedBeforeTheFileWasReplacedReadsNothingOfTheNewFile() throws {
        scratch.write("picked.txt", "what the human picked")
        let client = try frontend()
        let (id, _) = try choose(client, scratch.url("picked.txt"))
        _ = client.ending(of: id)
        let lease = try #require(client.call("resolveAccess", ["url": .string(scratch.url("picked.txt"))])?["accessId"])
        atomicSave(scratch.path("picked.txt"), "something else entirely")
        #expect(client.request("readFile", ["accessId": lease])?["error"]?["code"] == -32020)
    }

    @Test func fifosAndSocketsAreListedDisabledAndRefusedByChoose() throws {
        let folder = scratch.makeDirectory("special")
        scratch.write("special/regular.txt", "text")
        scratch.fifo("special/pipe.txt")
        scratch.socket("special/sock.txt")
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.item"]]))
        let entries = try #require(client.call("dialog/list", ["dialogId": .string(id), "directory": .string(folder.url)])?["entries"]?.arrayValue)
        let enabled = Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
            entry["url"]?.stringValue.map { ($0, entry["enabled"] == true) }
        })
        #expect(enabled == [scratch.url("special/regular.txt"): true, scratch.url("special/pipe.txt"): false,
                            scratch.url("special/sock.txt"): false])
        for name in ["special/pipe.txt", "special/sock.txt"] {
            let refused = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url(name))]])
            #expect(refused?["error"]?["code"] == -32015, "\(name)")
            #expect(refused?["error"]?["data"]?["url"] == .string(scratch.url(name)))
        }
        // Neither can a symlink to one be picked, nor a folder picker take one.
        scratch.symlink("special/to-pipe", to: "pipe.txt")
        #expect(client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("special/to-pipe"))]])?["error"]?["code"] == -32015)
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(scratch.url("special/regular.txt"))]]) == [:])
    }

    @Test func aFifoInsideAGrantedFolderCannotBeResolved() throws {
        let folder = scratch.makeDirectory("granted")
        scratch.fifo("granted/pipe")
        let client = try frontend()
        let (id, answer) = try choose(client, folder.url, types: ["public.folder"])
        #expect(answer?["result"] == [:])
        _ = client.ending(of: id)
        #expect(client.request("resolveAccess", ["url": .string(scratch.url("granted/pipe"))])?["error"]?["code"] == -32020)
    }
}
