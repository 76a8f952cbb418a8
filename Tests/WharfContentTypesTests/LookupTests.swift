import Testing
@testable import WharfContentTypes

/// `UTType(filenameExtension:conformingTo:)` and `UTType(mimeType:)`, over the system types and
/// the system MIME database.
@Suite struct LookupTests {
    let scope = ContentTypeScope(registry: .system)

    @Test(arguments: [
        ("png", "public.png"), ("PNG", "public.png"), ("jpg", "public.jpeg"), ("txt", "public.plain-text"),
        ("md", "net.daringfireball.markdown"), ("py", "public.python-script"), ("json", "public.json"),
        ("zip", "public.zip-archive"), ("gz", "org.gnu.gnu-zip-archive"), ("pdf", "com.adobe.pdf"),
        ("docx", "org.openxmlformats.wordprocessingml.document"), ("app", "com.apple.application-bundle"),
    ])
    func filenameExtensionsOfSystemTypes(ext: String, expected: String) {
        #expect(scope.type(forFilenameExtension: ext) == expected
            || (ext == "app" && scope.type(forFilenameExtension: ext, conformingTo: "public.directory") == expected))
    }

    @Test func extensionLookupHonoursTheRequestedParent() {
        #expect(scope.type(forFilenameExtension: "app", conformingTo: "public.directory") == "com.apple.application-bundle")
        #expect(scope.type(forFilenameExtension: "png", conformingTo: "public.image") == "public.png")
        // No type for .png conforms to text: a dynamic type that does is made up.
        let dynamic = scope.type(forFilenameExtension: "png", conformingTo: "public.text")
        #expect(dynamic?.hasPrefix("dyn.") == true)
        #expect(scope.conforms(dynamic ?? "", to: "public.text"))
    }

    @Test func extensionKnownOnlyToTheMIMEDatabaseMapsThroughItsMIMEType() throws {
        // *.blend is application/x-blender in shared-mime-info; no system type claims it.
        let id = try #require(scope.type(forFilenameExtension: "blend"))
        #expect(id.hasPrefix("dyn."))
        #expect(scope.describe(id)?.mimeTypes == ["application/x-blender"])
        #expect(scope.type(forMIMEType: "application/x-blender") == id)
    }

    @Test func unknownExtensionGetsAStableDynamicTypeConformingToData() throws {
        let id = try #require(scope.type(forFilenameExtension: "qqqzz"))
        #expect(id.hasPrefix("dyn."))
        #expect(id == scope.type(forFilenameExtension: "QQQZZ"))
        #expect(scope.conforms(id, to: "public.data"))
        #expect(!scope.conforms(id, to: "public.content"))
        let description = try #require(scope.describe(id))
        #expect(description.isDynamic && !description.isDeclared)
        #expect(description.filenameExtensions == ["qqqzz"])
    }

    @Test func everyDynamicTypeALookupGivesIsKnownAndMeansWhatWasAsked() {
        // `;` separates a dynamic identifier's conformance: an extension holding one made an
        // identifier that decoded to nothing (`a;b`) or to another type (`x;to=public.image`,
        // the extension `x` made to conform to public.image). Such extensions are malformed.
        for ext in ["a;b", "x;to=public.image", "y;to=public.text;"] {
            let id = scope.type(forFilenameExtension: ext)
            #expect(id == nil, "\(ext) gave \(id ?? "")")
        }
        #expect(!scope.conforms(scope.type(forFilenameExtension: "x;to=public.image") ?? "", to: "public.image"))
        for ext in ["qqqzz", "tar.gz", "a b", "a=b", "x-y_z"] {
            let id = scope.type(forFilenameExtension: ext)
            #expect(id.map(scope.isKnown) == true, "\(ext) gave \(id ?? "nothing")")
            #expect(id.flatMap(scope.describe)?.filenameExtensions.contains(ext) == true, "\(ext)")
        }
    }

    @Test func malformedExtensionsAndUnknownParentsGiveNothing() {
        #expect(scope.type(forFilenameExtension: "") == nil)
        #expect(scope.type(forFilenameExtension: ".png") == nil)
        #expect(scope.type(forFilenameExtension: "a/b") == nil)
        #expect(scope.type(forFilenameExtension: "png", conformingTo: "no.such.type") == nil)
    }

    @Test(arguments: [
        ("image/png", "public.png"), ("IMAGE/PNG", "public.png"), ("text/plain", "public.plain-text"),
        ("text/plain; charset=utf-8", "public.utf8-plain-text"), ("text/plain;charset=UTF-16", "public.utf16-plain-text"),
        ("application/pdf", "com.adobe.pdf"), ("inode/directory", "public.folder"),
        // Aliases of the MIME database resolve to the canonical type's identifier.
        ("application/x-gzip", "org.gnu.gnu-zip-archive"), ("text/x-vcard", "public.vcard"),
        ("audio/wav", "com.microsoft.waveform-audio"), ("application/x-javascript", "com.netscape.javascript-source"),
        ("text/xml", "public.xml"), ("application/x-pdf", "com.adobe.pdf"),
    ])
    func mimeTypesOfSystemTypesAndTheirAliases(mime: String, expected: String) {
        #expect(scope.type(forMIMEType: mime) == expected)
    }

    @Test func aliasOfAnUndeclaredTypeGetsTheCanonicalTypesDynamicIdentifier() throws {
        // text/x-troff is an alias of text/troff in shared-mime-info.
        let alias = try #require(scope.type(forMIMEType: "text/x-troff"))
        #expect(alias == scope.type(forMIMEType: "text/troff"))
        #expect(scope.describe(alias)?.mimeTypes == ["text/troff"])
    }

    @Test func textTypesTheSystemDoesNotDeclareConformToPlainText() throws {
        let go = try #require(scope.type(forMIMEType: "text/x-go"))
        #expect(go.hasPrefix("dyn."))
        #expect(scope.conforms(go, to: "public.plain-text"))
        #expect(scope.conforms(go, to: "public.text"))
        #expect(scope.conforms(go, to: "public.data"))
        #expect(scope.describe(go)?.preferredFilenameExtension == "go")
    }

    @Test func mimeParentsCarryOverToDynamicTypes() throws {
        // application/x-compressed-tar is a subclass of application/gzip.
        let tgz = try #require(scope.type(forMIMEType: "application/x-compressed-tar"))
        #expect(scope.conforms(tgz, to: "org.gnu.gnu-zip-archive"))
        #expect(scope.conforms(tgz, to: "public.archive"))
        // Undeclared images are still images, so an image/* filter and conformance agree.
        let xcf = try #require(scope.type(forMIMEType: "image/x-xcf"))
        #expect(scope.conforms(xcf, to: "public.image"))
        #expect(scope.conforms(xcf, to: "public.content"))
    }

    @Test func malformedMIMETypesGiveNothing() {
        #expect(scope.type(forMIMEType: "png") == nil)
        #expect(scope.type(forMIMEType: "image/") == nil)
        #expect(scope.type(forMIMEType: "/png") == nil)
    }

    @Test func describeOfADynamicMIMETypeUsesTheDatabasesDescription() throws {
        let id = try #require(scope.type(forMIMEType: "application/x-blender"))
        let description = try #require(scope.describe(id))
        #expect(description.description.lowercased().contains("blender"))
        #expect(description.conformsTo.contains("public.data"))
        #expect(description.isDynamic)
    }
}
