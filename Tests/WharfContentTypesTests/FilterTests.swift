import Testing
@testable import WharfContentTypes
import WharfSystem
import WharfTestSupport

/// Dialog-filter expansion: allowed types → globs, MIME types, directories.
@Suite struct FilterTests {
    let scope = ContentTypeScope(registry: .system)

    @Test(arguments: ["public.item", "public.data", "public.content"])
    func theMostGeneralTypesMeanNoFilter(id: String) {
        let filters = scope.filters(for: ["public.png", id])
        #expect(filters.allowsAllFiles)
        #expect(filters.globs == ["*"])
        #expect(filters.mimeTypes.isEmpty)
        #expect(filters.directories == (id == "public.item"))
    }

    @Test func foldersAloneAllowDirectoriesAndNoFiles() {
        let filters = scope.filters(for: ["public.folder"])
        #expect(filters == DialogFilters(allowsAllFiles: false, globs: [], mimeTypes: [], directories: true))
        #expect(scope.filters(for: ["public.directory"]).directories)
    }

    @Test func nothingAllowedMeansNothingMatches() {
        #expect(scope.filters(for: []) == DialogFilters(allowsAllFiles: false, globs: [], mimeTypes: [], directories: false))
        #expect(scope.filters(for: ["no.such.type"]).globs.isEmpty)
    }

    @Test func concreteTypesListTheirExtensionsAndMIMETypes() {
        let filters = scope.filters(for: ["public.png", "com.adobe.pdf"])
        #expect(!filters.allowsAllFiles && !filters.directories)
        #expect(filters.globs.contains("*.png") && filters.globs.contains("*.pdf"))
        #expect(filters.mimeTypes.contains("image/png") && filters.mimeTypes.contains("application/pdf"))
        #expect(!filters.globs.contains("*.jpg"))
    }

    @Test func abstractMediaTypesBecomeWildcards() {
        let images = scope.filters(for: ["public.image"])
        #expect(images.mimeTypes.first == "image/*")
        #expect(!images.mimeTypes.contains("image/png"))
        // Globs still name every image the system knows, declared or not.
        #expect(images.globs.contains("*.png") && images.globs.contains("*.jpeg") && images.globs.contains("*.xcf"))
        #expect(!images.globs.contains("*.txt"))
        #expect(scope.filters(for: ["public.audio"]).mimeTypes.contains("audio/*"))
    }

    @Test func wildcardsAreUsedOnlyWhenExact() {
        // text/html is public.html: text, but not plain text, so text/* would let too much in.
        let plain = scope.filters(for: ["public.plain-text"])
        #expect(!plain.mimeTypes.contains("text/*"))
        #expect(plain.mimeTypes.contains("text/plain") && plain.mimeTypes.contains("text/x-go"))
        #expect(!plain.mimeTypes.contains("text/html"))
        #expect(plain.globs.contains("*.go") && plain.globs.contains("*.md") && !plain.globs.contains("*.html"))
    }

    @Test func abstractTypesWithoutAWildcardListWhatConforms() {
        let archives = scope.filters(for: ["public.archive"])
        for glob in ["*.zip", "*.gz", "*.tar", "*.tar.gz", "*.docx"] {
            #expect(archives.globs.contains(glob), "\(glob) missing")
        }
        #expect(!archives.globs.contains("*.png"))
    }

    @Test func filtersMatchConformance() {
        // Every glob of a filter names files that conform to an allowed type.
        for allowed in [["public.image"], ["public.source-code"], ["public.archive", "com.adobe.pdf"]] {
            let filters = scope.filters(for: allowed)
            for glob in filters.globs where glob.hasPrefix("*.") && !glob.dropFirst(2).contains(where: { "*?[".contains($0) }) {
                let id = scope.identifyByName("file" + glob.dropFirst(), isDirectory: false)
                let conforms = allowed.contains { scope.conforms(id, to: $0) }
                // A glob may belong to a lighter candidate of an ambiguous name; require that
                // at least its own type conforms.
                let byExtension = scope.type(forFilenameExtension: String(glob.dropFirst(2)), conformingTo: allowed[0])
                #expect(conforms || byExtension != nil, "\(glob) in \(allowed) names \(id)")
            }
        }
    }

    @Test func aGlobNamesNoFileThatIdentifiesAsAnotherType() throws {
        // `*.C` is C++ source only as written: a filter's globs match whatever the case, and
        // `*.c` would show every C file for C++ (its MIME type stands for it instead).
        let cpp = scope.filters(for: ["public.c-plus-plus-source"])
        #expect(!cpp.globs.contains("*.c"))
        #expect(cpp.mimeTypes.contains("text/x-c++src") && cpp.globs.contains("*.cpp"))
        #expect(!scope.filters(for: ["public.plain-text"]).globs.contains("*.gs"))
        // An extension Wharf's table claims names files of the table's type, whatever other
        // MIME types list it: `a.html` is HTML, not XHTML; `a.otf` a font, not an ODF template;
        // `a.svgz` an SVG image, not a gzip archive.
        #expect(!scope.filters(for: ["public.xml"]).globs.contains("*.html"))
        let archives = scope.filters(for: ["public.archive"])
        #expect(!archives.globs.contains("*.otf") && !archives.globs.contains("*.svgz") && archives.globs.contains("*.gz"))
        #expect(scope.filters(for: ["public.image"]).globs.contains("*.svgz"))
        // Likewise a client's types: one the table overrules names no file by that extension,
        // and one that takes an extension from the MIME database takes its glob too.
        var declaring = scope
        try declaring.declare([
            TypeDeclaration(identifier: "com.example.fakepng", conformsTo: ["public.data"], filenameExtensions: ["png", "fpng"]),
            TypeDeclaration(identifier: "com.example.go", conformsTo: ["public.data"], filenameExtensions: ["go"]),
        ])
        #expect(declaring.filters(for: ["com.example.fakepng"]).globs == ["*.fpng"])
        #expect(declaring.type(forFilename: Array("main.go".utf8)) == "com.example.go")
        #expect(!declaring.filters(for: ["public.plain-text"]).globs.contains("*.go"))
        #expect(declaring.filters(for: ["com.example.go"]).globs == ["*.go"])
    }

    @Test func declaredTypesContributeTheirTags() throws {
        var scope = self.scope
        try scope.declare([TypeDeclaration(identifier: "com.example.notes", conformsTo: ["public.plain-text"],
                                           filenameExtensions: ["notes"], mimeTypes: ["application/x-example-notes"])])
        let own = scope.filters(for: ["com.example.notes"])
        #expect(own.globs == ["*.notes"])
        #expect(own.mimeTypes == ["application/x-example-notes"])
        #expect(scope.filters(for: ["public.plain-text"]).globs.contains("*.notes"))
        #expect(!self.scope.filters(for: ["public.plain-text"]).globs.contains("*.notes"))
    }

    @Test func packagesAreMatchedByTheirGlobs() {
        let filters = scope.filters(for: ["com.apple.application-bundle"])
        #expect(filters.globs == ["*.app"])
        #expect(!filters.directories)
    }

    /// Threads asking for the same set of types at once get one answer, worked out once: the
    /// first works it out and the others wait for it (a daemon's clients opening their first
    /// plain-text dialog together used to walk the type tables once each, side by side).
    @Test func aSetAskedForByManyThreadsAtOnceIsWorkedOutOnce() {
        let cache = FilterCache()
        let computations = Locked(0)
        let worked = DialogFilters(allowsAllFiles: false, globs: ["*.txt"], mimeTypes: ["text/*"], directories: false)
        let answers = Locked<[DialogFilters]>([])
        concurrently(8) { _ in
            let filters = cache.value(for: "public.plain-text") {
                computations.withValue { $0 += 1 }
                ProcessControl.sleep(milliseconds: 100)  // the others ask meanwhile
                return worked
            }
            answers.withValue { $0.append(filters) }
        }
        #expect(computations.withValue { $0 } == 1)
        #expect(answers.withValue { $0 } == Array(repeating: worked, count: 8))
        // Another set is worked out on its own.
        #expect(cache.value(for: "public.image") { DialogFilters(allowsAllFiles: true, globs: ["*"], mimeTypes: [], directories: false) }.allowsAllFiles)
    }

    /// The cache is bounded by bytes as well as by entries: 512 sets of large declared types
    /// had each kept its filters (a review's client held 25 MiB an entry).
    @Test func theCacheHoldsAtMostItsBytes() {
        let cache = FilterCache()
        let large = DialogFilters(allowsAllFiles: false, globs: [String(repeating: "g", count: 1 << 20)], mimeTypes: [], directories: false)
        for set in 0..<20 {
            _ = cache.value(for: "set \(set)") { large }
            #expect(cache.byteCount <= FilterCache.capacityBytes)
        }
        #expect(cache.byteCount > 0)
        // What it still holds is answered without working it out again.
        var workedOut = false
        _ = cache.value(for: "set 19") {
            workedOut = true
            return large
        }
        #expect(!workedOut)
    }
}
