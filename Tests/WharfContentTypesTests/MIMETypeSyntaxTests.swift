import Testing
@testable import WharfContentTypes

/// What counts as a MIME type where a client declares one or a dynamic identifier carries one:
/// `type/subtype`, each part non-empty, no space, control character, DEL or parameter.
@Suite struct MIMETypeSyntaxTests {
    @Test(arguments: ["text/plain", "application/vnd.ms-excel", "x/y", "text/x-c++src", "application/x-ñ"])
    func accepted(mime: String) {
        #expect(isValidMIMEType(mime))
    }

    @Test(arguments: ["", "text", "/plain", "text/", "/", "text/plain/x", "text//plain", "text/pl ain",
                      "text/plain;charset=utf-8", "text/\u{7F}", "text/\t", " text/plain"])
    func refused(mime: String) {
        #expect(!isValidMIMEType(mime))
    }
}

/// The one spelling a MIME type is looked up by: lowercased, parameters dropped, an alias
/// resolved to the type it names.
@Suite struct MIMECanonicalNameTests {
    @Test(arguments: [
        ("text/plain", "text/plain"), ("Text/Plain", "text/plain"), ("text/plain; charset=utf-8", "text/plain"),
        ("TEXT/PLAIN;charset=UTF-16", "text/plain"), ("application/x-pdf", "application/pdf"),
        ("Application/X-PDF ; x=1", "application/pdf"), ("text/x-wharf-unknown", "text/x-wharf-unknown"),
    ])
    func canonicalName(of mime: String, is expected: String) {
        #expect(ContentTypeRegistry.system.tables.database.canonicalName(mime) == expected)
    }
}
