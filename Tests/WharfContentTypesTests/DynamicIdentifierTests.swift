import Testing
@testable import WharfContentTypes
import WharfSystem

@Suite struct DynamicIdentifierTests {
    @Test func encodingIsStableAndDocumented() {
        // Pinned: a change of encoding would rename every dynamic type clients stored.
        #expect(DynamicIdentifier(tag: .mimeType("text/x-go")).identifier == "dyn.nvuw2zj5orsxq5bppawwo3y")
    }

    @Test func decodesBackToTheTag() throws {
        for dynamic in [DynamicIdentifier(tag: .mimeType("application/vnd.ms-excel")),
                        DynamicIdentifier(tag: .filenameExtension("qqq")),
                        DynamicIdentifier(tag: .filenameExtension("png"), conformsTo: "public.text"),
                        DynamicIdentifier(tag: .mimeType("image/x-xcf"), conformsTo: "com.example.layers")] {
            let decoded = try #require(DynamicIdentifier(dynamic.identifier))
            #expect(decoded == dynamic)
            // Identifiers are case-insensitive; the encoding survives that.
            #expect(DynamicIdentifier(dynamic.identifier.uppercased()) == dynamic)
        }
    }

    @Test func producesOnlyIdentifierCharacters() {
        let id = DynamicIdentifier(tag: .mimeType("application/vnd.openxmlformats-officedocument.wordprocessingml.document")).identifier
        #expect(id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) || $0 == 0x2E })
    }

    @Test func rejectsWhatItDidNotMake() {
        #expect(DynamicIdentifier("dyn.") == nil)
        #expect(DynamicIdentifier("dyn.0000") == nil)
        #expect(DynamicIdentifier("public.png") == nil)
        #expect(DynamicIdentifier("dyn.nbswy3dp") == nil)  // "hello": no tag
        // Payloads this encoder never makes: more than one conformance, an empty one, a field
        // that is not one, an empty tag.
        for payload in ["mime=text/x-a;to=public.text;to=public.data", "mime=text/x-a;to=", "mime=text/x-a;as=public.text",
                        "mime=;to=public.text", "ext=;to=public.text", "mime=text/x-a;"] {
            #expect(DynamicIdentifier("dyn." + Base32.encode(Array(payload.utf8))) == nil, "\(payload)")
        }
        #expect(DynamicIdentifier("dyn." + Base32.encode(Array("mime=text/x-a;to=public.text".utf8)))
            == DynamicIdentifier(tag: .mimeType("text/x-a"), conformsTo: "public.text"))
        let scope = ContentTypeScope(registry: .system)
        #expect(!scope.isKnown("dyn.nbswy3dp"))
        #expect(scope.isKnown("dyn.nvuw2zj5orsxq5bppawwo3y"))
    }
}
