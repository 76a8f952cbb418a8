import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// A path is bytes end to end (issue 12, class 1), over the binary. Names that read alike —
/// canonically equivalent Unicode, an invalid byte against the replacement character — stay
/// different files in every answer, every grant and every check. Only URLs (percent-encoded
/// ASCII) and byte arrays are compared here: Swift's `String ==` takes NFC and NFD as equal.
@Suite struct BytePathsOverTheWire {
    let scratch = ScratchDirectory()
    static let composed = "caf\u{E9}"        // é as one code point (NFC)
    static let decomposed = "cafe\u{301}"    // e + combining acute (NFD)
    static let invalidByte: [UInt8] = Array("name".utf8) + [0xFF] + Array(".txt".utf8)
    static let replacement: [UInt8] = Array("name\u{FFFD}.txt".utf8)

    init() {
        scratch.write("\(Self.composed)/own.txt", "composed folder's own file")
        scratch.write("\(Self.decomposed)/secret.txt", "the look-alike sibling's secret")
        scratch.write("files/\(Self.composed).txt", "composed name")
        scratch.write("files/\(Self.decomposed).txt", "decomposed name")
        scratch.makeDirectory("bytes")
        writeFile(scratch.path("bytes").appending(Self.invalidByte), Array("the 0xFF file".utf8))
        writeFile(scratch.path("bytes").appending(Self.replacement), Array("the U+FFFD file".utf8))
    }

    /// Picks `urls` in a frontend importer; the URLs `dialog/completed` returned.
    func pick(_ client: WireClient, _ urls: [String], types: JSON = ["public.item"]) throws -> [JSON] {
        let id = try #require(client.present(["allowedContentTypes": types, "allowsMultipleSelection": true]))
        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": .array(urls.map { .string($0) })]) == [:])
        return try #require(client.ending(of: id)?["params"]?["urls"]?.arrayValue)
    }

    /// What the lease on `url` reads, as bytes; nil when access is refused.
    func read(_ client: WireClient, _ url: String) -> [UInt8]? {
        guard let lease = client.request("resolveAccess", ["url": .string(url)])?["result"]?["accessId"] else { return nil }
        defer { _ = client.call("releaseAccess", ["accessId": lease]) }
        return client.call("readFile", ["accessId": lease])?["base64"]?.stringValue.flatMap { Base64.decode($0) }
    }

    @Test func aGrantForOneFolderDoesNotReachItsCanonicallyEquivalentSibling() throws {
        let composedFolder = scratch.path(Self.composed), decomposedFolder = scratch.path(Self.decomposed)
        #expect(composedFolder.bytes != decomposedFolder.bytes, "two folders on disk")
        scratch.symlink("\(Self.composed)/escape.txt", to: "../\(Self.decomposed)/secret.txt")
        let client = try frontend()
        let granted = try pick(client, [composedFolder.url], types: ["public.folder"])
        #expect(granted == [.string(composedFolder.url)])

        #expect(read(client, composedFolder.appending("own.txt").url) == Array("composed folder's own file".utf8))
        let throughLink = client.request("resolveAccess", ["url": .string(composedFolder.appending("escape.txt").url)])
        #expect(throughLink?["error"]?["code"] == -32020, "a symlink in the granted folder must not resolve into the look-alike")
        let sibling = client.request("resolveAccess", ["url": .string(decomposedFolder.appending("secret.txt").url)])
        #expect(sibling?["error"]?["code"] == -32020)
        let byText = client.request("resolveAccess", ["url": .string(decomposedFolder.appending("secret.txt").description)])
        #expect(byText?["error"]?["code"] == -32020, "a path given as text is its UTF-8 bytes, not normalised")
    }

    @Test func choosingBothEquivalentNamesReturnsTwoURLs() throws {
        let composed = scratch.path("files/\(Self.composed).txt"), decomposed = scratch.path("files/\(Self.decomposed).txt")
        let client = try frontend()
        let urls = try pick(client, [composed.url, decomposed.url])
        #expect(urls == [.string(composed.url), .string(decomposed.url)])
        #expect(composed.url != decomposed.url)
        #expect(read(client, composed.url) == Array("composed name".utf8))
        #expect(read(client, decomposed.url) == Array("decomposed name".utf8))
    }

    @Test func anInvalidByteAndTheReplacementCharacterAreListedChosenAndReadApart() throws {
        let client = try frontend()
        let id = try #require(client.present(["allowedContentTypes": ["public.plain-text"]]))
        let listing = try #require(client.call("dialog/list", ["dialogId": .string(id), "directory": .string(scratch.url("bytes"))]))
        let entries = try #require(listing["entries"]?.arrayValue)
        let urls = entries.compactMap { $0["url"]?.stringValue }
        #expect(urls.count == 2 && Set(urls).count == 2, "\(urls)")
        let invalidURL = try #require(urls.first { $0.hasSuffix("name%FF.txt") })
        let replacementURL = try #require(urls.first { $0.hasSuffix("name%EF%BF%BD.txt") })
        #expect(FileURL.path(from: invalidURL)?.bytes == scratch.path("bytes").appending(Self.invalidByte).bytes)
        #expect(entries.allSatisfy { $0["enabled"] == true })

        #expect(client.call("dialog/choose", ["dialogId": .string(id), "urls": [.string(invalidURL)]]) == [:])
        #expect(client.ending(of: id)?["params"]?["urls"] == [.string(invalidURL)], "the URL chosen back names the same file")
        #expect(read(client, invalidURL) == Array("the 0xFF file".utf8))
        #expect(client.request("resolveAccess", ["url": .string(replacementURL)])?["error"]?["code"] == -32020,
                "the grant for the 0xFF name is not a grant for its look-alike")
        let lease = try #require(client.call("resolveAccess", ["url": .string(invalidURL)]))
        #expect(lease["url"] == .string(invalidURL))
    }

    /// Every listed entry's URL, chosen back, names that same file, and `enabled` is exactly what
    /// `dialog/choose` accepts, for names that are hard to carry.
    @Test func everyListedURLChosenBackNamesItsFileAndEnabledIsWhatChooseAccepts() throws {
        let folder = scratch.makeDirectory("awkward")
        let names: [[UInt8]] = [
            Array("plain.txt".utf8), Array("with space.txt".utf8), Array("percent%41.txt".utf8),
            Array("question?.txt".utf8), Array("hash#.txt".utf8), Array("new\nline.txt".utf8),
            Array("back\\slash.txt".utf8), Array("\(Self.composed).txt".utf8), Array("\(Self.decomposed).txt".utf8),
            Self.invalidByte, Self.replacement, [0x80, 0x2E, 0x74, 0x78, 0x74], Array(".hidden.txt".utf8),
            Array("image.png".utf8), Array("ctl\u{1B}[31m.txt".utf8),
        ]
        for (index, name) in names.enumerated() { writeFile(folder.appending(name), Array("file \(index)".utf8)) }
        let client = try frontend()
        let lister = try #require(client.present(["allowedContentTypes": ["public.plain-text"],
                                                  "options": ["browserOptions": ["includeHiddenFiles"]]]))
        let entries = try #require(client.call("dialog/list", ["dialogId": .string(lister), "directory": .string(folder.url)])?["entries"]?.arrayValue)
        #expect(entries.count == names.count)
        #expect(Set(entries.compactMap { $0["url"]?.stringValue }).count == names.count, "no two names share a URL")
        for entry in entries {
            let url = try #require(entry["url"]?.stringValue)
            let path = try #require(FileURL.path(from: url))
            #expect(names.contains(path.lastComponent), "\(url) names a file that is there")
            let id = try #require(client.present(["allowedContentTypes": ["public.plain-text"],
                                                  "options": ["browserOptions": ["includeHiddenFiles"]]]))
            let answer = client.request("dialog/choose", ["dialogId": .string(id), "urls": [.string(url)]])
            let accepted = answer?["result"] == [:]
            #expect(accepted == (entry["enabled"] == true), "\(url): enabled \(String(describing: entry["enabled"])), choose \(String(describing: answer))")
            if accepted {
                #expect(client.ending(of: id)?["params"]?["urls"] == [.string(url)])
                let index = try #require(names.firstIndex(of: path.lastComponent))
                #expect(read(client, url) == Array("file \(index)".utf8))
            } else {
                #expect(client.call("cancel", ["dialogId": .string(id)])?["cancelled"] == true)
            }
        }
        _ = client.call("cancel", ["dialogId": .string(lister)])
    }
}

/// Path handling costs time linear in the path's length (issue 12, class 1): a URL of 64k tiny
/// components once took about 50 s and stalled `ping`. The test compares sizes, not clocks:
/// four times the components may cost about four times as much, never sixteen.
@Suite struct LongPathsOverTheWire {
    let scratch = ScratchDirectory()

    /// A `file:` URL of `components` short components, mixing names, `.` and `..`.
    static func longURL(components: Int) -> String {
        let cycle = ["a", "b", ".", "..", "c", "d", "..", "e"]
        var url = "file://"
        url.reserveCapacity(components * 3 + 8)
        for index in 0..<components { url += "/" + cycle[index % cycle.count] }
        return url
    }

    /// Seconds for the server to answer every path-taking method given `url`, and a `ping`
    /// sent after them.
    func cost(_ client: WireClient, dialog: String, url: String) -> Double {
        let started = monotonicNanoseconds()
        let ids = [
            client.sendRequest("resolveAccess", ["url": .string(url)]),
            client.sendRequest("contentTypes/identify", ["paths": [.string(url)]]),
            client.sendRequest("dialog/list", ["dialogId": .string(dialog), "directory": .string(url)]),
            client.sendRequest("dialog/choose", ["dialogId": .string(dialog), "urls": [.string(url)]]),
            client.sendRequest("presentImporter", ["allowedContentTypes": ["public.item"], "options": ["defaultDirectory": .string(url)]]),
            client.sendRequest("ping", [:]),
        ]
        var answered = 0
        for id in ids {
            guard let response = client.response(to: id, timeout: 120) else { continue }
            answered += 1
            if let opened = response["result"]?["dialogId"] { _ = client.call("cancel", ["dialogId": opened]) }
        }
        #expect(answered == ids.count, "every request is answered")
        return Double(monotonicNanoseconds() - started) / 1e9
    }

    @Test func aURLOf64kTinyComponentsCostsLinearTime() throws {
        let client = try frontend()
        let dialog = try #require(client.present(["allowedContentTypes": ["public.item"],
                                                  "options": ["defaultDirectory": .string(scratch.directory)]]))
        let small = Self.longURL(components: 16_384), large = Self.longURL(components: 65_536)
        #expect(large.utf8.count >= 128 * 1024)
        _ = cost(client, dialog: dialog, url: small)  // warm up
        // Each ratio is of two costs measured one right after the other, and the median of five
        // is judged: the machine's load changes between pairs, not within one. (The least of
        // five of each size, measured size after size, once read 6.4 under AddressSanitizer
        // beside a build: the small size had caught a quiet moment the large one never did.)
        let pairs = (0..<5).map { _ in
            (small: cost(client, dialog: dialog, url: small), large: cost(client, dialog: dialog, url: large))
        }
        let ratio = pairs.map { $0.large / $0.small }.sorted()[2]
        // Linear is about 4 (a round trip's fixed cost is a few milliseconds against 0.3 s; 3 to
        // 4.5 measured, debug and AddressSanitizer builds); one copy of the path per component,
        // which is quadratic, made it 7.6 in the debug build.
        #expect(ratio < 6, "16k and 64k components, seconds: \(pairs), median ratio \(ratio)")
        #expect(client.call("ping", [:]) == [:])
    }
}

/// A path given on `wharf`'s command line is its bytes: `CommandLine.arguments` would have
/// turned the 0xFF byte into U+FFFD, and so named the look-alike file beside it.
@Suite struct BytePathsOnTheCommandLine {
    @Test func typesIdentifyNamesTheFileWhoseBytesWereGiven() throws {
        let scratch = ScratchDirectory()
        let invalid = scratch.path(bytes: BytePathsOverTheWire.invalidByte)
        let lookAlike = scratch.path(bytes: BytePathsOverTheWire.replacement)
        writeFile(invalid, Array("plain text\n".utf8))
        writeFile(lookAlike, Array("{\"a\": 1}\n".utf8))
        let child = try Subprocess.spawn(Array(wharfExecutablePath().utf8), arguments: [Array("types".utf8), Array("identify".utf8), invalid.bytes],
                                         standardOutput: .pipe, standardError: .pipe)
        let output = try child.standardOutput!.readToEnd()
        #expect(child.wait() == .exited(0), "\(String(decoding: (try? child.standardError!.readToEnd()) ?? [], as: UTF8.self))")
        // The line names exactly the path given, its 0xFF escaped as `\xFF` (a tab in a name
        // would be `\t`); the look-alike would print as `name\u{FFFD}.txt`.
        let line = String(decoding: output, as: UTF8.self)
        #expect(line.hasPrefix(scratch.path.description + "/name\\xFF.txt\tpublic.plain-text\t"), "\(line)")
    }
}
