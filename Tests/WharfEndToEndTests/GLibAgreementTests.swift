import Glibc
import Testing
import WharfJSON
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// Wharf must agree with the Linux desktop about what a file is. GLib (`gio info`) is the
/// reference: a generated corpus is identified by `contentTypes/identify` of the real binary,
/// over pipes, and by `gio info`, and the MIME types are compared.
@Suite struct GLibAgreementTests {
    /// Where Wharf and GLib 2.74 differ on purpose, by file name, with the reason. Asserted both
    /// ways: a new disagreement fails the test, and so does an expected one that went away.
    static let expectedDisagreements: [String: (wharf: String, glib: String, why: String)] = [
        // GLib calls every empty file text/plain, whatever its name, so that new files open in a
        // text editor. Wharf keeps the name's type for an empty file (an empty `notes.md` must
        // still pass a Markdown filter, as it does on a Mac) and, with no name to go by, uses the
        // shared-mime-info type for empty documents.
        "empty": ("application/x-zerosize", "text/plain", "empty file without a known name"),
        "empty.weird": ("application/x-zerosize", "text/plain", "empty file without a known name"),
        "empty.png": ("image/png", "text/plain", "empty file keeps its name's type"),
        // An extension Wharf's own table knows decides where the MIME database knows no more
        // than the extension (the documented precedence; the same identifier
        // contentTypes/fromFilenameExtension gives): Debian's database has no *.swift, so GLib
        // falls back to text; it names Python text/x-python3 where Apple's identifier is
        // public.python-script (text/x-python); and *.otf is claimed by both OpenType fonts and
        // ODF formula templates, which GLib settles by sniffing and Wharf by the table, as a Mac
        // does.
        "main.swift": ("text/x-swift", "text/plain", "the table knows *.swift, Debian's MIME database does not"),
        "modern.py": ("text/x-python", "text/x-python3", "the table's Python type"),
        "formula.otf": ("font/otf", "application/vnd.oasis.opendocument.formula-template", "the table's *.otf"),
    ]

    @Test func contentTypesIdentifyAgreesWithGLibOnAGeneratedCorpus() throws {
        let gio = try #require(executableOnPath("gio"), "gio is missing: install the Debian package libglib2.0-bin")
        let scratch = ScratchDirectory("wharf-glib")
        let files = Corpus.files()
        #expect(files.count >= 200)
        let paths = files.map { scratch.write($0.name, $0.bytes).description }

        let glib = try glibContentTypes(paths, gio: gio)
        let client = try WireClient.spawn()
        client.initialize()
        let answer = client.call("contentTypes/identify", ["paths": .array(paths.map { .string($0) })], timeout: 60)
        let results = try #require(answer?["results"]?.arrayValue)
        try #require(results.count == paths.count)

        var agreements = 0
        var unexpected: [String] = []
        for ((file, path), result) in zip(zip(files, paths), results) {
            let ours = try #require(result["mimeType"]?.stringValue, "no MIME type for \(file.name): \(result)")
            let theirs = try #require(glib[path], "gio said nothing about \(path)")
            if ours == theirs {
                agreements += 1
                if Self.expectedDisagreements[file.name] != nil {
                    unexpected.append("\(file.name): expected to disagree but both say \(ours)")
                }
            } else if let expected = Self.expectedDisagreements[file.name], expected.wharf == ours, expected.glib == theirs {
                continue
            } else {
                unexpected.append("\(file.name): Wharf \(ours), GLib \(theirs)")
            }
        }
        #expect(unexpected.isEmpty, "unexpected disagreements:\n\(unexpected.joined(separator: "\n"))")
        let rate = Double(agreements) / Double(files.count)
        #expect(rate >= 0.98, "agreement \(agreements)/\(files.count)")
        #expect(client.shutdownAndExit() == 0)
    }

    /// `gio info -a standard::content-type` on every path (in batches), parsed into path → type.
    private func glibContentTypes(_ paths: [String], gio: String) throws -> [String: String] {
        var result: [String: String] = [:]
        var start = 0
        while start < paths.count {
            let batch = Array(paths[start ..< min(start + 100, paths.count)])
            start += batch.count
            let child = try ChildProcess(path: gio, arguments: ["info", "-a", "standard::content-type"] + batch)
            child.closeStdin()
            let output = readAll(child.stdout)
            #expect(child.waitForExit(seconds: 60) == 0, "gio info failed")
            var current: String?
            for line in output.split(separator: "\n") {
                if line.hasPrefix("uri: ") {
                    current = FileURL.path(from: String(line.dropFirst(5)))?.description
                } else if let current, line.hasPrefix("  standard::content-type: ") {
                    result[current] = String(line.dropFirst("  standard::content-type: ".count))
                }
            }
        }
        return result
    }

    private func executableOnPath(_ name: String) -> String? {
        let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return search.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
