import Testing
import WharfTestSupport
@testable import WharfContentTypes

/// Client-declared types: validated as a batch, visible to the declaring client only.
@Suite struct DeclarationTests {
    func freshScope() -> ContentTypeScope { ContentTypeScope(registry: .system) }

    @Test func declaredTypesJoinConformanceForTheirClientOnly() throws {
        var scope = freshScope()
        try scope.declare([
            TypeDeclaration(identifier: "com.example.notes", conformsTo: ["public.plain-text"],
                            filenameExtensions: ["notes"], mimeTypes: ["application/x-example-notes"],
                            description: "Example notes"),
            TypeDeclaration(identifier: "com.example.secret-notes", conformsTo: ["com.example.notes", "public.composite-content"]),
        ])
        #expect(scope.conforms("com.example.secret-notes", to: "com.example.notes"))
        #expect(scope.conforms("com.example.secret-notes", to: "public.text"))
        #expect(scope.conforms("com.example.secret-notes", to: "public.content"))
        #expect(scope.type(forFilenameExtension: "notes") == "com.example.notes")
        #expect(scope.type(forMIMEType: "application/x-example-notes") == "com.example.notes")
        let description = try #require(scope.describe("COM.EXAMPLE.NOTES"))
        #expect(description.identifier == "com.example.notes")
        #expect(description.description == "Example notes")
        #expect(description.isDeclared && !description.isDynamic)

        let other = freshScope()
        #expect(!other.isKnown("com.example.notes"))
        #expect(other.type(forFilenameExtension: "notes")?.hasPrefix("dyn.") == true)
    }

    @Test func parentsMayComeLaterInTheSameBatchOrFromEarlierBatches() throws {
        var scope = freshScope()
        try scope.declare([
            TypeDeclaration(identifier: "com.example.child", conformsTo: ["com.example.parent"]),
            TypeDeclaration(identifier: "com.example.parent", conformsTo: ["public.data"]),
        ])
        try scope.declare([TypeDeclaration(identifier: "com.example.grandchild", conformsTo: ["com.example.child"])])
        #expect(scope.conforms("com.example.grandchild", to: "com.example.parent"))
        #expect(scope.conforms("com.example.grandchild", to: "public.item"))
    }

    @Test(arguments: [
        ([TypeDeclaration(identifier: "", conformsTo: ["public.data"])], ContentTypeError.emptyIdentifier),
        ([TypeDeclaration(identifier: "com.example.a", conformsTo: ["com.example.missing"])],
         .unknownParent(type: "com.example.a", parent: "com.example.missing")),
        ([TypeDeclaration(identifier: "public.png", conformsTo: ["public.image"])], .alreadyDeclaredBySystem("public.png")),
        ([TypeDeclaration(identifier: "com.example/a", conformsTo: [])], .invalidIdentifier("com.example/a")),
        ([TypeDeclaration(identifier: "dyn.abc", conformsTo: [])], .invalidIdentifier("dyn.abc")),
        ([TypeDeclaration(identifier: "com.example.a", conformsTo: []), TypeDeclaration(identifier: "COM.example.a", conformsTo: [])],
         .duplicateDeclaration("COM.example.a")),
        ([TypeDeclaration(identifier: "com.example.a", conformsTo: [], filenameExtensions: [".a"])],
         .invalidTag(type: "com.example.a", tag: ".a")),
        ([TypeDeclaration(identifier: "com.example.a", conformsTo: [], mimeTypes: ["nonsense"])],
         .invalidTag(type: "com.example.a", tag: "nonsense")),
        ([], .noTypes),
        ([TypeDeclaration(identifier: "com.example.root", conformsTo: [])], .noParents("com.example.root")),
        ([TypeDeclaration(identifier: "com.example.self", conformsTo: ["com.example.self"])],
         .cycle(type: "com.example.self", path: ["com.example.self", "com.example.self"])),
        ([TypeDeclaration(identifier: "com.example.a", conformsTo: ["com.example.b"]),
          TypeDeclaration(identifier: "com.example.b", conformsTo: ["com.example.c"]),
          TypeDeclaration(identifier: "com.example.c", conformsTo: ["com.example.a"])],
         .cycle(type: "com.example.a", path: ["com.example.a", "com.example.b", "com.example.c", "com.example.a"])),
    ])
    func invalidDeclarationsAreRefusedWithTheOffendingIdentifier(batch: [TypeDeclaration], expected: ContentTypeError) {
        var scope = freshScope()
        #expect(throws: expected) { try scope.declare(batch) }
        // Nothing of a refused batch is kept.
        for declaration in batch where !declaration.identifier.isEmpty && !declaration.identifier.hasPrefix("public.") {
            #expect(!scope.isKnown(declaration.identifier))
        }
    }

    /// What a client declares goes into the filters of its dialogs, to the presenter: a
    /// declaration stays small, and a refusal quotes at most 64 characters of it.
    @Test func declarationsLargerThanTheLimitsAreRefused() {
        let long = String(repeating: "x", count: 8 << 20)
        func refusal(_ declaration: TypeDeclaration) -> String? {
            var scope = freshScope()
            do throws(ContentTypeError) {
                try scope.declare([declaration])
                return nil
            } catch {
                guard case .tooLarge = error else { return "not tooLarge: \(error)" }
                return error.description
            }
        }
        let extensions = refusal(TypeDeclaration(identifier: "com.example.a", conformsTo: ["public.data"], filenameExtensions: [long]))
        #expect(extensions?.contains("filename extensions longer than 255 bytes") == true)
        #expect((extensions?.utf8.count ?? .max) < 200, "the message quotes the whole extension")
        #expect(refusal(TypeDeclaration(identifier: "com.example." + long, conformsTo: ["public.data"]))?.contains("longer than 255 bytes") == true)
        #expect(refusal(TypeDeclaration(identifier: "com.example.a", conformsTo: ["public.data"],
                                        mimeTypes: (0..<65).map { "application/x-a\($0)" }))?.contains("more than 64 MIME types") == true)
        #expect(refusal(TypeDeclaration(identifier: "com.example.a", conformsTo: ["public.data"],
                                        description: String(repeating: "é", count: 4097)))?.contains("description longer") == true)
        #expect(refusal(TypeDeclaration(identifier: "com.example.a", conformsTo: ["public.data"], filenameExtensions: ["a"],
                                        description: String(repeating: "é", count: 4096))) == nil)

        var scope = freshScope()
        #expect(throws: Never.self) { try scope.declare((0..<1024).map { TypeDeclaration(identifier: "com.example.t\($0)", conformsTo: ["public.data"]) }) }
        #expect(throws: ContentTypeError.self) { try scope.declare([TypeDeclaration(identifier: "com.example.one-more", conformsTo: ["public.data"])]) }
    }

    /// Within every bound of one type, a client's declarations together hold at most 256 KiB:
    /// 1,024 types of 64 long extensions each had made every dialog's filters 35 MB, and a
    /// chain of 1,024 long names made describing its deepest type 261 KB.
    @Test func aClientsDeclarationsTogetherHoldAtMost256KiB() {
        func long(_ i: Int) -> String { "com.example.t\(i)." + String(repeating: "a", count: 230) }
        var scope = freshScope()
        // A chain of long names, each conforming to the one before: 1,024 × 2 × ~250 bytes.
        let chain = (0..<1024).map { TypeDeclaration(identifier: long($0), conformsTo: [$0 == 0 ? "public.data" : long($0 - 1)]) }
        #expect(throws: ContentTypeError.self) { try scope.declare(chain) }
        #expect(!scope.isKnown(long(0)), "nothing of the refused batch is kept")
        // Half of it is within the bound; the rest, declared later, is not.
        #expect(throws: Never.self) { try scope.declare(Array(chain[..<400])) }
        do throws(ContentTypeError) {
            try scope.declare(Array(chain[400...]))
            Issue.record("the declarations went past 256 KiB")
        } catch {
            #expect(error.description.contains("past 262144 bytes"))
        }
        #expect(scope.isKnown(long(399)) && !scope.isKnown(long(400)))
    }

    @Test func errorMessagesNameTheOffendingTypes() {
        let unknown = ContentTypeError.unknownParent(type: "com.example.a", parent: "com.example.missing")
        #expect(unknown.description.contains("com.example.a") && unknown.description.contains("com.example.missing"))
        let cycle = ContentTypeError.cycle(type: "com.example.a", path: ["com.example.a", "com.example.b", "com.example.a"])
        #expect(cycle.description.contains("com.example.a → com.example.b → com.example.a"))
        #expect(ContentTypeError.alreadyDeclaredBySystem("public.png").description.contains("public.png"))
    }

    @Test func redeclaringIdenticallyIsAcceptedButConflictingIsNot() throws {
        var scope = freshScope()
        let notes = TypeDeclaration(identifier: "com.example.notes", conformsTo: ["public.plain-text"], filenameExtensions: ["notes"])
        try scope.declare([notes])
        try scope.declare([notes])
        var changed = notes
        changed.conformsTo = ["public.data"]
        #expect(throws: ContentTypeError.alreadyDeclared("com.example.notes")) { try scope.declare([changed]) }
        #expect(scope.conforms("com.example.notes", to: "public.plain-text"))
    }

    @Test func declaredPackageExtensionsMakeDirectoriesThatPackage() throws {
        var scope = freshScope()
        try scope.declare([TypeDeclaration(identifier: "com.example.project", conformsTo: ["com.apple.package"],
                                           filenameExtensions: ["exproj"])])
        let directory = ScratchDirectory("wharf-ct")
        let project = directory.makeDirectory("Thing.exproj")
        let identified = try scope.identify(path: project).get()
        #expect(identified == Identification(identifier: "com.example.project", mimeType: "inode/directory", source: .extension))
        #expect(scope.identifyByName("Thing.exproj", isDirectory: true) == "com.example.project")
        #expect(ContentTypeScope(registry: .system).identifyByName("Thing.exproj", isDirectory: true) == "public.folder")
    }

    @Test func declaredExtensionsIdentifyFilesUnlessTheSystemClaimsThem() throws {
        var scope = freshScope()
        try scope.declare([
            TypeDeclaration(identifier: "com.example.notes", conformsTo: ["public.plain-text"], filenameExtensions: ["notes"]),
            TypeDeclaration(identifier: "com.example.fakepng", conformsTo: ["public.data"], filenameExtensions: ["png"]),
        ])
        let directory = ScratchDirectory("wharf-ct")
        let notes = directory.write("todo.notes", "buy milk\n")
        let png = directory.write("pic.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try scope.identify(path: notes).get().identifier == "com.example.notes")
        #expect(try scope.identify(path: png).get().identifier == "public.png")
        #expect(scope.identifyByName("todo.NOTES", isDirectory: false) == "com.example.notes")
    }
}
