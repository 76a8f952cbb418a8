import Testing
@testable import WharfContentTypes

/// Conformance follows Apple's graph over both trees: reflexive, transitive, several parents.
@Suite struct ConformanceTests {
    let scope = ContentTypeScope(registry: .system)

    @Test(arguments: [
        // Physical tree.
        ("public.folder", "public.directory"), ("public.folder", "public.item"),
        ("public.directory", "public.item"), ("public.data", "public.item"),
        // Text, through both trees.
        ("public.utf8-plain-text", "public.plain-text"), ("public.utf8-plain-text", "public.text"),
        ("public.utf8-plain-text", "public.data"), ("public.utf8-plain-text", "public.content"),
        ("public.utf8-plain-text", "public.item"),
        ("public.json", "public.text"), ("public.source-code", "public.plain-text"),
        ("public.python-script", "public.script"), ("public.python-script", "public.source-code"),
        ("public.python-script", "public.text"), ("net.daringfireball.markdown", "public.plain-text"),
        ("public.comma-separated-values-text", "public.text"),
        // Images and media.
        ("public.png", "public.image"), ("public.png", "public.data"), ("public.png", "public.content"),
        ("public.heic", "public.image"), ("public.mpeg-4", "public.movie"),
        ("public.mpeg-4", "public.audiovisual-content"), ("public.mp3", "public.audio"),
        // Several parents at once.
        ("com.apple.application-bundle", "com.apple.bundle"), ("com.apple.application-bundle", "com.apple.package"),
        ("com.apple.application-bundle", "public.directory"), ("com.apple.application-bundle", "public.executable"),
        ("public.zip-archive", "public.archive"), ("public.zip-archive", "public.data"),
        ("org.openxmlformats.wordprocessingml.document", "public.zip-archive"),
        ("org.openxmlformats.wordprocessingml.document", "public.composite-content"),
        ("com.adobe.pdf", "public.composite-content"), ("com.adobe.pdf", "public.content"),
    ])
    func conformsAcrossBothTrees(type: String, parent: String) {
        #expect(scope.conforms(type, to: parent))
    }

    @Test(arguments: [
        ("public.png", "public.text"), ("public.folder", "public.data"), ("public.data", "public.content"),
        ("public.html", "public.plain-text"), ("public.text", "public.plain-text"),
        ("public.item", "public.data"), ("com.apple.application-bundle", "public.data"),
        ("public.zip-archive", "public.content"), ("public.png", "no.such.type"),
    ])
    func doesNotConformWhereAppleDoesNot(type: String, parent: String) {
        #expect(!scope.conforms(type, to: parent))
    }

    @Test func conformanceIsReflexive() {
        for id in ["public.item", "public.png", "com.apple.package"] {
            #expect(scope.conforms(id, to: id))
        }
    }

    @Test func unknownTypesConformToNothingNotEvenThemselves() {
        #expect(!scope.conforms("com.example.unknown", to: "com.example.unknown"))
        #expect(!scope.conforms("com.example.unknown", to: "public.item"))
    }

    @Test func identifiersCompareCaseInsensitively() {
        #expect(scope.conforms("PUBLIC.PNG", to: "Public.Image"))
        #expect(scope.canonical("Public.PNG") == "public.png")
    }

    @Test func everySystemTypeReachesARootAndHasNoUnknownParent() {
        for declaration in systemTypeDeclarations {
            for parent in declaration.conformsTo {
                #expect(scope.isKnown(parent), "\(declaration.identifier) names unknown parent \(parent)")
            }
            let reachesRoot = scope.conforms(declaration.identifier, to: "public.item")
                || scope.conforms(declaration.identifier, to: "public.content")
            #expect(reachesRoot, "\(declaration.identifier) reaches neither public.item nor public.content")
        }
    }

    @Test func describeReportsDirectParentsAndAllSupertypes() throws {
        let png = try #require(scope.describe("public.png"))
        #expect(png.identifier == "public.png")
        #expect(png.conformsTo == ["public.image"])
        #expect(png.supertypes == ["public.image", "public.data", "public.content", "public.item"])
        #expect(png.preferredFilenameExtension == "png")
        #expect(png.preferredMIMEType == "image/png")
        #expect(png.isDeclared && !png.isDynamic)
        #expect(!png.description.isEmpty)

        let bundle = try #require(scope.describe("com.apple.application-bundle"))
        #expect(Set(bundle.supertypes).isSuperset(of: ["com.apple.bundle", "com.apple.package", "public.directory", "public.item"]))
        #expect(!bundle.supertypes.contains("com.apple.application-bundle"))
        #expect(scope.describe("no.such.type") == nil)
    }
}
