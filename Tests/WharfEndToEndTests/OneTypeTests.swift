import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// One answer to "what type is this file" (issue 12, class 4): `wharf types identify`,
/// `contentTypes/identify`, `dialog/list` (its `contentType` and `enabled`), `dialog/choose`,
/// `contentTypes/filters` and the filters in `presenter/show` must agree on every file of a
/// corpus chosen to trip them up (names that decide, names that do not, contents that do).
@Suite struct OneTypeForEveryFile {
    let scratch = ScratchDirectory()
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [UInt8](repeating: 0, count: 13)
    static let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 10)

    /// The corpus, in its own folder: every name the test expects to see listed.
    let names: [String]

    init() {
        let files: [(String, [UInt8])] = [
            ("a.swift", Array("let x = 1\n".utf8)),
            ("Package.swift", Array("// swift-tools-version:6.0\nimport PackageDescription\n".utf8)),
            ("README", Array("Read me first.\nPlain text without an extension.\n".utf8)),
            ("picture", Self.png),
            ("photo.PNG", Self.png),
            ("lies.png", Array("this is text pretending\n".utf8)),
            ("a.tar.gz", Self.gzip),
            ("notes.txt", Array("notes\n".utf8)),
            ("empty", []),
            ("empty.txt", []),
            ("data.bin", [0, 1, 2, 3, 0xFE, 0xFF, 0, 7]),
            ("page.html", Array("<!DOCTYPE html><html><body>hi</body></html>\n".utf8)),
            ("Makefile", Array("all:\n\ttrue\n".utf8)),
        ]
        for (name, bytes) in files { scratch.write("corpus/\(name)", bytes) }
        scratch.makeDirectory("corpus/folder")
        scratch.symlink("corpus/shortcut", to: "picture")
        scratch.symlink("corpus/readme-link.txt", to: "README")
        names = files.map(\.0) + ["folder", "shortcut", "readme-link.txt"]
    }

    /// What the command line says of each corpus file: name → (identifier, MIME type).
    func commandLineAnswers() -> [String: [String]] {
        let paths = names.map { scratch.file("corpus/\($0)") }
        let (status, output) = run(wharfExecutablePath(), ["types", "identify"] + paths)
        #expect(status == 0, "\(output)")
        var answers: [String: [String]] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, let path = FilePath(fields[0]) else { continue }
            answers[String(decoding: path.lastComponent, as: UTF8.self)] = [fields[1], fields[2]]
        }
        return answers
    }

    /// What `contentTypes/identify` says of each corpus file, asked by path and by URL.
    func wireAnswers(_ client: WireClient) throws -> [String: [String]] {
        var answers: [String: [String]] = [:]
        for form in [{ (name: String) in scratch.file("corpus/\(name)") }, { scratch.url("corpus/\($0)") }] {
            let results = try #require(client.call("contentTypes/identify", ["paths": .array(names.map { .string(form($0)) })])?["results"]?.arrayValue)
            #expect(results.count == names.count)
            for (name, result) in zip(names, results) {
                let answer = [result["identifier"]?.stringValue ?? "error", result["mimeType"]?.stringValue ?? "error"]
                if let earlier = answers[name] { #expect(earlier == answer, "\(name) by path and by URL") }
                answers[name] = answer
            }
        }
        return answers
    }

    /// Whether a file view filtering by `filters` shows a file named `name` of MIME type `mime`,
    /// as DialogFilters documents it: a glob matching the name (case-insensitively) or a MIME
    /// type (`image/*` covering `image/`). Directories pass when `directories` is set.
    static func passes(_ filters: JSON, name: String, mime: String, isDirectory: Bool) -> Bool {
        if isDirectory { return filters["directories"] == true }
        let globs = filters["globs"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let mimeTypes = filters["mimeTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if globs.contains(where: { fnmatch($0, name, 1 << 4 /* FNM_CASEFOLD */) == 0 }) { return true }
        return mimeTypes.contains { $0 == mime || ($0.hasSuffix("/*") && mime.hasPrefix($0.dropLast())) }
    }

    @Test(arguments: ["public.plain-text", "public.image", "public.folder"])
    func everyWayOfAskingGivesTheSameAnswer(allowed: String) throws {
        let cli = commandLineAnswers()
        let client = try frontend()
        let wire = try wireAnswers(client)
        #expect(cli.count == names.count)
        for name in names { #expect(cli[name] == wire[name], "\(name): command line \(cli[name] ?? []), wire \(wire[name] ?? [])") }

        let filters = try #require(client.call("contentTypes/filters", ["identifiers": [.string(allowed)]]))
        let id = try #require(client.present(["allowedContentTypes": [.string(allowed)],
                                              "options": ["defaultDirectory": .string(scratch.file("corpus"))]]))
        let shown = try #require(client.notification("presenter/show")?["params"]?["filters"])
        #expect(shown["globs"] == filters["globs"])
        #expect(shown["mimeTypes"] == filters["mimeTypes"])
        #expect(shown["directories"] == filters["directories"])

        let entries = try #require(client.call("dialog/list", ["dialogId": .string(id)])?["entries"]?.arrayValue)
        #expect(Set(entries.compactMap { $0["name"]?.stringValue }) == Set(names))
        for entry in entries {
            let name = try #require(entry["name"]?.stringValue)
            let identifier = try #require(wire[name]?[0]), mime = try #require(wire[name]?[1])
            #expect(entry["contentType"] == .string(identifier), "\(name): listed as \(String(describing: entry["contentType"])), identified as \(identifier)")
            let conforms = try #require(client.call("contentTypes/conforms", ["identifier": .string(identifier), "to": .string(allowed)])?["conforms"])
            #expect(entry["enabled"] == conforms, "\(name) (\(identifier)) under \(allowed)")
            let isDirectory = entry["isDirectory"] == true
            #expect(Self.passes(filters, name: name, mime: mime, isDirectory: isDirectory) == (entry["enabled"] == true),
                    "\(name) (\(identifier), \(mime)): the filters and the listing disagree under \(allowed)")

            let chooser = try #require(client.present(["allowedContentTypes": [.string(allowed)]]))
            let answer = client.request("dialog/choose", ["dialogId": .string(chooser), "urls": [entry["url"] ?? .null]])
            #expect((answer?["result"] == [:]) == (entry["enabled"] == true), "\(name): choose said \(String(describing: answer))")
            _ = client.call("cancel", ["dialogId": .string(chooser)])
        }
        _ = client.call("cancel", ["dialogId": .string(id)])
    }
}
