import Testing
import WharfSystem
@testable import WharfContentTypes

/// Wharf must agree with the Linux desktop about what a file is. GLib (`gio info`) is the
/// reference: the corpus is identified by both and the MIME types compared.
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
    ]

    @Test func identificationAgreesWithGLibOnAGeneratedCorpus() throws {
        try #require(programExists("gio"), "gio is missing: install the Debian package libglib2.0-bin")
        let directory = TemporaryDirectory("wharf-glib")
        let files = Corpus.files()
        #expect(files.count >= 200)
        var paths: [String] = []
        for file in files { paths.append(directory.write(file.name, file.bytes)) }

        let glib = try glibContentTypes(paths)
        let scope = ContentTypeScope(registry: .system)
        var agreements = 0
        var unexpected: [String] = []
        var seenExpected: Set<String> = []
        for (file, path) in zip(files, paths) {
            let ours = try scope.identify(path: path).get().mimeType
            let theirs = try #require(glib[path], "gio said nothing about \(path)")
            if ours == theirs {
                agreements += 1
                if Self.expectedDisagreements[file.name] != nil {
                    unexpected.append("\(file.name): expected to disagree but both say \(ours)")
                }
            } else if let expected = Self.expectedDisagreements[file.name], expected.wharf == ours, expected.glib == theirs {
                seenExpected.insert(file.name)
            } else {
                unexpected.append("\(file.name): Wharf \(ours), GLib \(theirs)")
            }
        }
        #expect(unexpected.isEmpty, "unexpected disagreements:\n\(unexpected.joined(separator: "\n"))")
        let rate = Double(agreements) / Double(files.count)
        #expect(rate >= 0.98, "agreement \(agreements)/\(files.count)")
    }

    /// `gio info -a standard::content-type` on every path (in batches), parsed into path → type.
    private func glibContentTypes(_ paths: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        var start = 0
        while start < paths.count {
            let batch = Array(paths[start ..< min(start + 100, paths.count)])
            start += batch.count
            let (status, output) = try run("gio", ["info", "-a", "standard::content-type"] + batch)
            #expect(status == 0, "gio info failed")
            var current: String?
            for line in output.split(separator: "\n") {
                if line.hasPrefix("uri: ") {
                    current = FileURL.path(from: String(line.dropFirst(5)))
                } else if let current, line.hasPrefix("  standard::content-type: ") {
                    result[current] = String(line.dropFirst("  standard::content-type: ".count))
                }
            }
        }
        return result
    }
}
