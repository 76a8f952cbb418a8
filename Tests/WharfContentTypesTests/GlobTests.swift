import Testing
import WharfTestSupport
@testable import WharfContentTypes

/// Name matching over a MIME database written by the test, so each rule is exercised alone.
@Suite struct GlobTests {
    let directory = ScratchDirectory("wharf-ct")
    let scope: ContentTypeScope

    init() {
        var fixture = MIMEDatabaseFixture()
        fixture.globs = [
            "80:text/x-heavy:*.hv",
            "60:application/x-light:*.hv",
            "50:application/gzip:*.gz",
            "50:application/x-compressed-tar:*.tar.gz",
            "50:text/x-makefile:makefile",
            "10:text/x-readme:readme*",
            "50:text/x-csrc:*.c:cs",
            "50:text/x-c++src:*.C:cs",
            "50:image/png:*.png",
            "50:application/x-core:core:cs",
            "5:application/x-anything:*",
            "50:audio/x-one:*.amb",
            "50:audio/x-two:*.amb",
            "50:application/x-sharedlib:*.so.[0-9]*",
        ]
        scope = ContentTypeScope(registry: ContentTypeRegistry(mimeDirectories: [fixture.write(into: directory)]))
    }

    func mime(_ name: String) -> String? {
        let tables = scope.registry.tables
        return scope.globMatches(name, tables: tables).first.map { tables.database.typeNames[Int($0.type)] }
    }

    func all(_ name: String) -> [String] {
        let tables = scope.registry.tables
        return scope.globMatches(name, tables: tables).map { tables.database.typeNames[Int($0.type)] }
    }

    @Test func matchingIgnoresCaseUnlessTheGlobIsCaseSensitive() {
        #expect(mime("photo.PNG") == "image/png")
        #expect(mime("Photo.Png") == "image/png")
        #expect(mime("main.c") == "text/x-csrc")
        #expect(mime("main.C") == "text/x-c++src")
        #expect(mime("MAKEFILE") == "text/x-makefile")
        #expect(mime("core") == "application/x-core")
        // A case-sensitive literal does not match other spellings; the catch-all `*` does.
        #expect(mime("Core") == "application/x-anything")
    }

    @Test func longestSuffixWins() {
        // `*.gz` is not a candidate at all. Nor is the catch-all `*`: as in GLib, the suffix
        // was found in both passes (case-folded and as written), which counts as two matches,
        // and fnmatch patterns are only tried below two.
        #expect(all("backup.tar.gz") == ["application/x-compressed-tar"])
        #expect(all("backup.gz") == ["application/gzip"])
        // Written in capitals, the second pass finds nothing, so `*` joins in, after.
        #expect(all("BACKUP.TAR.GZ") == ["application/x-compressed-tar", "application/x-anything"])
    }

    @Test func literalNamesBeatPatterns() {
        // A literal match ends the search: `*` is not even a candidate.
        #expect(all("Makefile") == ["text/x-makefile"])
        #expect(mime("Makefile.am") == "application/x-anything")
    }

    @Test func heavierGlobsComeFirstAndLighterOnesRemainCandidates() {
        #expect(all("x.hv") == ["text/x-heavy", "application/x-light"])
    }

    @Test func equalWeightsKeepTheirOrderAsCandidates() {
        #expect(all("x.amb") == ["audio/x-one", "audio/x-two"])
    }

    @Test func fnmatchPatternsApplyWhenSuffixesLeaveRoom() {
        #expect(mime("libz.so.1") == "application/x-sharedlib")
        #expect(all("README.first") == ["text/x-readme", "application/x-anything"])
        #expect(mime("nothing-special") == "application/x-anything")
    }

    @Test func identifyByNameTakesTheHeaviestGlobWithoutIO() {
        #expect(scope.identifyByName("x.hv", isDirectory: false) == scope.type(forMIMEType: "text/x-heavy"))
        #expect(scope.identifyByName("a.png", isDirectory: false) == "public.png")
        #expect(scope.identifyByName("a.png", isDirectory: true) == "public.folder")
        #expect(scope.identifyByName("Some.app", isDirectory: true) == "com.apple.application-bundle")
    }

    @Test func noGlobMeansPublicData() {
        let bare = ContentTypeScope(registry: ContentTypeRegistry(mimeDirectories: ["/nonexistent"]))
        #expect(bare.identifyByName("whatever.xyz", isDirectory: false) == "public.data")
    }

    @Test func systemDatabaseNameMatching() {
        let system = ContentTypeScope(registry: .system)
        #expect(system.identifyByName("photo.JPG", isDirectory: false) == "public.jpeg")
        #expect(system.identifyByName("archive.tar.gz", isDirectory: false)
            == system.type(forMIMEType: "application/x-compressed-tar"))
        #expect(system.identifyByName("Makefile", isDirectory: false) == system.type(forMIMEType: "text/x-makefile"))
        #expect(system.identifyByName("main.c", isDirectory: false) == "public.c-source")
        #expect(system.identifyByName("main.C", isDirectory: false) == "public.c-plus-plus-source")
        #expect(system.identifyByName("no-extension", isDirectory: false) == "public.data")
    }
}
